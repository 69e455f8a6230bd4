// No anonymous volumes (issue 30 item 17): a VOLUME an image declares becomes a new unnamed
// volume for each container that mounts nothing there, left behind at every recreation. The
// gateway's image declares none (its serve and worker containers of the compose stack and of the
// multi-host recipe keep their database in PostgreSQL and their files in S3), and every VOLUME
// of the other images of deploy/compose.yaml has a named volume or a tmpfs mounted on it.
// Docker does not run here: the files are read as data.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { parse } from 'yaml';
import { installRoot, loadConfig } from '../../src/config/load.js';
import { repositoryDockerfile } from '../install/dockerfile.js';

interface Service {
  image?: string;
  volumes?: (string | { type: string; source?: string; target: string })[];
  tmpfs?: string[] | string;
}

const read = (file: string) => readFileSync(path.join(installRoot, file), 'utf8');
const compose = parse(read('deploy/compose.yaml'), { merge: true }) as { services: Record<string, Service>; volumes?: Record<string, unknown> };

/**
 * The VOLUME instructions of the third-party images compose.yaml runs, read from their
 * Dockerfiles (docker-library/postgres 17/bookworm, docker-library/redis 7/alpine,
 * minio/minio's Dockerfile.release, nginx's alpine image and minio/mc: none). A new image in
 * compose.yaml fails the test below until it is listed here.
 */
const imageVolumes: Record<string, string[]> = {
  postgres: ['/var/lib/postgresql/data'],
  redis: ['/data'],
  'quay.io/minio/minio': ['/data'],
  'quay.io/minio/mc': [],
  nginx: [],
};

/** Where each of a service's mounts goes and what it is: a named volume, a bind mount, a tmpfs, or anonymous. */
interface Mount {
  readonly target: string;
  readonly kind: 'named' | 'bind' | 'tmpfs' | 'anonymous';
  /** The named volume's name. */
  readonly source?: string;
}

function mountsOf(service: Service): Mount[] {
  const mounts: Mount[] = [];
  for (const volume of service.volumes ?? []) {
    if (typeof volume === 'string') {
      const [source, target] = volume.split(':');
      if (target === undefined) mounts.push({ target: source!, kind: 'anonymous' });
      else if (/^[./~]/.test(source!)) mounts.push({ target, kind: 'bind' });
      else mounts.push({ target, kind: 'named', source });
    } else if (volume.type === 'tmpfs' || volume.type === 'bind') mounts.push({ target: volume.target, kind: volume.type });
    else mounts.push(volume.source ? { target: volume.target, kind: 'named', source: volume.source } : { target: volume.target, kind: 'anonymous' });
  }
  const tmpfs = typeof service.tmpfs === 'string' ? [service.tmpfs] : (service.tmpfs ?? []);
  for (const entry of tmpfs) mounts.push({ target: entry.split(':')[0]!, kind: 'tmpfs' });
  return mounts;
}

test("the gateway's image declares no VOLUME: its containers on PostgreSQL and S3 leave no anonymous volume", (t) => {
  const runtime = repositoryDockerfile().find((stage) => stage.name === 'runtime')!;
  t.deepEqual(runtime.instructions.filter(({ keyword }) => keyword === 'VOLUME').map(({ line, args }) => `line ${line}: VOLUME ${args}`), []);
  // The compose stack's (and the multi-host recipe's) gateway processes keep nothing on their own disk.
  const config = loadConfig({ configPath: path.join(installRoot, 'deploy', 'gateway.yaml'), env: {} });
  t.is(config.storage.blobs.kind, 's3');
  t.is(config.database.client, 'postgres');
});

test('every VOLUME of the images in compose.yaml has a named volume or a tmpfs on it, and no service declares an anonymous one', (t) => {
  const declared = new Set(Object.keys(compose.volumes ?? {}));
  for (const [name, service] of Object.entries(compose.services)) {
    const image = service.image!.replace(/:[^/]*$/, '');
    const volumes = image === 'gateway' ? [] : imageVolumes[image];
    if (volumes === undefined) {
      t.fail(`${name}: list the VOLUME instructions of ${image} in imageVolumes`);
      continue;
    }
    const mounts = mountsOf(service);
    t.deepEqual(mounts.filter((mount) => mount.kind === 'anonymous').map((mount) => mount.target), [], `${name}: no anonymous volume`);
    for (const mount of mounts.filter((each) => each.kind === 'named')) t.true(declared.has(mount.source!), `${name}: ${mount.source} is declared under volumes:`);
    for (const volume of volumes) {
      const covering = mounts.find((mount) => mount.target === volume);
      t.true(covering?.kind === 'named' || covering?.kind === 'tmpfs', `${name}: ${image} declares VOLUME ${volume}; mount a named volume or a tmpfs there`);
    }
  }
  t.deepEqual(mountsOf(compose.services.redis!), [{ target: '/data', kind: 'tmpfs' }], 'Redis persists nothing (--save "", no AOF)');
});
