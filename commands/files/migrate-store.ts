import { Flags } from '@oclif/core';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { BlobStoreUnavailableError } from '../../src/storage/blob-store.js';
import { formatBytes, formatProgress, migrateBlobs, migrationTarget, type MigrationProgress, type MigrationSummary } from '../../src/storage/blob-migration.js';
import { openBlobStore } from '../../src/storage/open-blob-store.js';
import type { BlobStoreConfig } from '../../src/config/load.js';
import { InfrastructureError } from '../../src/util/infrastructure-error.js';

/** How often a progress line is printed when stderr is not a terminal (a log, a CI job). */
const plainProgressEveryMs = 10_000;

export default class FilesMigrateStore extends GatewayCommand {
  static override description =
    'Copy every live file\'s bytes from the blob store the gateway uses (storage.blobs) to another one (storage.blobs_next, or a local directory), verifying each by size and SHA-256. ' +
    'Resumable (blobs already at the target are skipped), switches nothing (edit the configuration after it reports success), never deletes at the source. ' +
    'Files made while it runs are not in the pass: run it again right before switching';
  static override examples = [
    '<%= config.bin %> files migrate-store --to s3',
    '<%= config.bin %> files migrate-store --dry-run',
    '<%= config.bin %> files migrate-store --to s3 --verify-existing --json',
    '<%= config.bin %> files migrate-store --to local --dir /var/lib/gateway/files',
  ];
  static override flags = {
    to: Flags.option({ options: ['s3', 'local'] as const, description: 's3: the S3 store in storage.blobs_next; local: a directory (--dir, default storage.dir). Absent: storage.blobs_next' })(),
    dir: Flags.string({ description: 'with --to local: the directory to copy to (default storage.dir)' }),
    concurrency: Flags.integer({ description: 'files copied at once', default: 4, min: 1, max: 64 }),
    'verify-existing': Flags.boolean({ description: 'read back and hash the blobs already at the target before skipping them (a wrong one is copied again)', default: false }),
    'dry-run': Flags.boolean({ description: 'count what would be copied and which source blobs are missing; write nothing', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(FilesMigrateStore);
    await this.runWithServices(flags, async (services) => {
      const storage = services.config.storage;
      const targetConfig = migrationTarget(storage, { to: flags.to, dir: flags.dir });
      const source = openBlobStore(storage.blobs);
      const target = openBlobStore(targetConfig);
      const interruption = new AbortController();
      const progress = flags.json ? undefined : new ProgressLine();
      // Ctrl-C: no new copies, those under way finish, the summary says how far it got. A second one ends at once.
      const onSigint = () => {
        if (interruption.signal.aborted) process.exit(130);
        interruption.abort();
        progress?.note('stopping after the copies under way (Ctrl-C again to stop at once; run again to continue)');
      };
      process.on('SIGINT', onSigint);
      try {
        await Promise.all([source.check(), target.check()]);
        progress?.note(`${flags['dry-run'] ? 'counting what would be copied' : 'copying'} from the ${source.description} to the ${target.description}`);
        const summary = await migrateBlobs({
          db: services.db,
          source,
          target,
          now: services.now,
          concurrency: flags.concurrency,
          verifyExisting: flags['verify-existing'],
          dryRun: flags['dry-run'],
          signal: interruption.signal,
          onProgress: progress ? (p) => progress.update(p) : undefined,
        });
        progress?.end();
        return {
          json: summaryJson(summary),
          text: summaryText(summary, switchStep(flags.to === 'local', flags.dir, targetConfig)),
          exitCode: summary.interrupted ? 130 : summary.missing.length + summary.mismatched.length > 0 ? 1 : 0,
        };
      } catch (error) {
        progress?.end();
        if (error instanceof BlobStoreUnavailableError) throw new InfrastructureError(`${error.message}; nothing was switched, and running again continues where this stopped`, { cause: error });
        throw error;
      } finally {
        process.off('SIGINT', onSigint);
        await Promise.all([source.close(), target.close()]);
      }
    });
  }
}

function summaryJson(summary: MigrationSummary): Record<string, unknown> {
  return {
    from: summary.from,
    to: summary.to,
    files: summary.files,
    copied: summary.copied,
    skipped: summary.skipped,
    missing: summary.missing,
    mismatched: summary.mismatched,
    bytes: summary.bytes,
    seconds: summary.seconds,
    dry_run: summary.dryRun,
    interrupted: summary.interrupted,
    complete: summary.complete,
  };
}

/** The configuration change that switches the gateway to the target. */
function switchStep(toLocal: boolean, dir: string | undefined, target: BlobStoreConfig): string {
  if (!toLocal || target.kind !== 'local') return 'rename storage.blobs_next to storage.blobs in the configuration';
  return dir === undefined ? 'set storage.blobs to {kind: local} in the configuration (its files are in storage.dir)' : `set storage.dir to ${target.dir} and storage.blobs to {kind: local} in the configuration`;
}

function summaryText(summary: MigrationSummary, switching: string): string {
  const lines: string[] = [];
  const dealtWith = summary.copied + summary.skipped + summary.missing.length + summary.mismatched.length;
  if (summary.dryRun) {
    lines.push(`dry run: ${summary.copied} of ${summary.files} file(s) would be copied (${formatBytes(summary.bytes)}), ${summary.skipped} already at the target; nothing was written`);
  } else {
    lines.push(`copied ${summary.copied} file(s) (${formatBytes(summary.bytes)}) in ${summary.seconds}s, skipped ${summary.skipped} already at the target, of ${summary.files} live file(s)`);
  }
  lines.push(`from: ${summary.from}`, `to:   ${summary.to}`);
  if (summary.missing.length > 0) lines.push(`missing at the source (no bytes to copy): ${summary.missing.length} file(s), ids ${summary.missing.join(', ')}`);
  if (summary.mismatched.length > 0) {
    lines.push(`bytes at the source differ from the recorded size or SHA-256 (not kept at the target): ${summary.mismatched.length} file(s), ids ${summary.mismatched.join(', ')}`);
  }
  if (summary.interrupted) lines.push(`interrupted after ${dealtWith} of ${summary.files} file(s): run the same command again to continue (copied blobs are skipped). Do not switch yet.`);
  else if (summary.complete) {
    lines.push(
      'every live file of this pass is at the target, verified by size and SHA-256. Nothing was switched.',
      'Files made while it ran are not in this pass: right before switching, stop writes or run it again (it copies only the new ones),',
      `then ${switching} and restart serve and worker.`,
    );
  } else if (!summary.dryRun) lines.push('NOT complete: do not switch storage.blobs while files are missing or mismatched (see docs/operations.md, "Moving files to S3").');
  return lines.join('\n');
}

/** Progress on stderr: one line rewritten in place on a terminal, a plain line every few seconds otherwise. */
class ProgressLine {
  private readonly tty = process.stderr.isTTY === true;
  private last: MigrationProgress | undefined;
  private lastDrawn = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor() {
    if (!this.tty) {
      this.timer = setInterval(() => this.last && process.stderr.write(`${formatProgress(this.last)}\n`), plainProgressEveryMs);
      this.timer.unref();
    }
  }

  note(line: string): void {
    process.stderr.write(this.tty ? `\r\x1b[K${line}\n` : `${line}\n`);
    if (this.tty && this.last) this.draw();
  }

  update(progress: MigrationProgress): void {
    this.last = progress;
    if (!this.tty) return;
    const now = Date.now();
    if (now - this.lastDrawn < 100 && progress.done < progress.files) return;
    this.lastDrawn = now;
    this.draw();
  }

  private draw(): void {
    process.stderr.write(`\r\x1b[K${formatProgress(this.last!)}`);
  }

  end(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.last) process.stderr.write(this.tty ? '\n' : `${formatProgress(this.last)}\n`);
    this.last = undefined;
  }
}
