// The hostile requests of issue 13 (items 1, 2 and 10): bodies that once killed `serve` or
// made it answer 500. Each must get a 4xx JSON error (the UTF-8 filename: a 200 with the name
// stored as sent) and leave the process serving; a 422 must not echo a huge input back.
import { patternPng } from '../../src/sim/media/png.js';
import { type ChaosRequest, send } from './client.js';
import type { ChaosAccount, Cluster } from './cluster.js';
import { multipartBody, multipartHeaders } from './multipart.js';

export interface HostileOutcome {
  readonly name: string;
  readonly ok: boolean;
  /** What was wrong (or the status when right). */
  readonly detail: string;
}

interface HostileInput {
  readonly name: string;
  readonly request: (key: string) => ChaosRequest;
  /** 'client-error': any 4xx with a JSON body. 'accepted': 2xx. */
  readonly expect: 'client-error' | 'accepted';
}

/** The largest answer a 422 may be: it may quote the input, not echo megabytes of it. */
const maximumErrorBytes = 64 * 1024;
const depth = 5000;
const deepArray = '['.repeat(depth) + ']'.repeat(depth);
const deepObject = '{"a":'.repeat(depth) + '{}' + '}'.repeat(depth);
export const utf8Filename = 'тест ✓.png';

/** The reproduction: a file part whose body never ends (no closing boundary). */
function truncatedMultipart(fields: Record<string, string>, fileField: string, filename: string): Buffer {
  const head = Object.entries(fields)
    .map(([name, value]) => `--zz\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
    .join('');
  return Buffer.from(`${head}--zz\r\nContent-Disposition: form-data; name="${fileField}"; filename="${filename}"\r\n\r\nabc`);
}

function rawJson(path: string, text: string, headers: Record<string, string> = {}): (key: string) => ChaosRequest {
  return (key) => ({ method: 'POST', path, key, raw: Buffer.from(text), headers: { 'content-type': 'application/json', ...headers } });
}

const multipartZz = { 'content-type': 'multipart/form-data; boundary=zz' };

export const hostileInputs: readonly HostileInput[] = [
  {
    name: 'truncated multipart /v1/audio/transcriptions',
    expect: 'client-error',
    request: (key) => ({ method: 'POST', path: '/v1/audio/transcriptions', key, raw: truncatedMultipart({ model: 'sim/stt' }, 'file', 'a.mp3'), headers: multipartZz }),
  },
  {
    name: 'truncated multipart /v1/images/edits',
    expect: 'client-error',
    request: (key) => ({ method: 'POST', path: '/v1/images/edits', key, raw: truncatedMultipart({ model: 'sim/image', prompt: 'x' }, 'image', 'a.png'), headers: multipartZz }),
  },
  {
    name: 'truncated multipart /v1/videos',
    expect: 'client-error',
    request: (key) => ({ method: 'POST', path: '/v1/videos', key, raw: truncatedMultipart({ model: 'sim/video', prompt: 'x' }, 'input_reference', 'a.png'), headers: multipartZz }),
  },
  {
    name: 'multipart without boundary',
    expect: 'client-error',
    request: (key) => ({ method: 'POST', path: '/v1/audio/transcriptions', key, raw: Buffer.from('--zz\r\n\r\nabc'), headers: { 'content-type': 'multipart/form-data' } }),
  },
  { name: 'invalid gzip body', expect: 'client-error', request: rawJson('/v1/chat/completions', 'this is not gzip', { 'content-encoding': 'gzip' }) },
  { name: 'invalid deflate body', expect: 'client-error', request: rawJson('/v1/embeddings', 'this is not deflate', { 'content-encoding': 'deflate' }) },
  { name: 'invalid br body', expect: 'client-error', request: rawJson('/v1/messages', 'this is not brotli', { 'content-encoding': 'br' }) },
  { name: '5000-deep stop', expect: 'client-error', request: rawJson('/v1/chat/completions', `{"model":"sim/chat","messages":[{"role":"user","content":"hi"}],"stop":${deepArray}}`) },
  { name: '5000-deep prompt', expect: 'client-error', request: rawJson('/v1/images/generations', `{"model":"sim/image","prompt":${deepArray}}`) },
  { name: '5000-deep metadata', expect: 'client-error', request: rawJson('/v1/messages', `{"model":"sim/chat","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"metadata":${deepArray}}`) },
  {
    name: '5000-deep tools parameters',
    expect: 'client-error',
    request: rawJson('/v1/chat/completions', `{"model":"sim/chat","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${deepObject}}}]}`),
  },
  { name: 'huge input', expect: 'client-error', request: (key) => ({ method: 'POST', path: '/v1/audio/speech', key, json: { model: 'sim/tts', voice: 'alloy', input: 'x'.repeat(3_000_000) } }) },
  {
    name: 'UTF-8 filename',
    expect: 'accepted',
    request: (key) => ({
      method: 'POST',
      path: '/v1/videos',
      key,
      raw: multipartBody(
        [
          { name: 'model', value: 'sim/video' },
          { name: 'prompt', value: 'chaos utf-8 filename [[sim:job-seconds=0.5]]' },
          { name: 'seconds', value: '4' },
          { name: 'input_reference', value: patternPng(64, 64, 'chaos'), filename: utf8Filename, contentType: 'image/png' },
        ],
        'chaosutf8',
      ),
      headers: multipartHeaders('chaosutf8'),
    }),
  },
];

/** Sends every hostile input to the `steady` serve process, one after another. */
export async function sendHostileInputs(cluster: Cluster, account: ChaosAccount): Promise<HostileOutcome[]> {
  const outcomes: HostileOutcome[] = [];
  const steady = cluster.process('steady');
  for (const input of hostileInputs) {
    const response = await send(steady.url, input.request(account.key), 20_000);
    let problem = '';
    if (response.status === 0) {
      problem = `no answer (${response.transportError})`;
      // If the input killed the process (its death is counted by the checks), bring it back so
      // the next input is judged on its own.
      const until = Date.now() + 2000;
      // Up to 2 s to see whether the process died (a live one that did not answer is a finding, not restarted).
      while (steady.alive && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
      if (!steady.alive) await steady.start();
    }
    else if (input.expect === 'accepted' && (response.status < 200 || response.status > 299)) problem = `${response.status} ${response.body.slice(0, 200)}`;
    else if (input.expect === 'client-error') {
      if (response.status < 400 || response.status > 499) problem = `${response.status} ${response.body.slice(0, 200)}`;
      else if (!response.contentType.includes('json')) problem = `${response.status} with ${response.contentType || 'no content-type'}: ${response.body.slice(0, 200)}`;
      else if (Buffer.byteLength(response.body) > maximumErrorBytes) problem = `${response.status} of ${Buffer.byteLength(response.body)} bytes (the input echoed back)`;
    }
    if (!problem && input.name === 'UTF-8 filename') problem = await storedFilenameProblem(cluster, account);
    outcomes.push({ name: input.name, ok: problem === '', detail: problem || String(response.status) });
  }
  return outcomes;
}

/** The newest upload of the account must carry the name as sent (not mojibake, not underscores). */
async function storedFilenameProblem(cluster: Cluster, account: ChaosAccount): Promise<string> {
  const file = await cluster.database.db('files').where({ account_id: account.id, purpose: 'upload' }).orderBy('id', 'desc').first();
  if (!file) return 'no upload stored';
  return file.filename === utf8Filename ? '' : `stored as ${JSON.stringify(file.filename)}`;
}
