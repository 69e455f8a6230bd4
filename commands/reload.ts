import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayCommand } from '../src/cli/base-command.js';
import { GatewayError } from '../src/errors/gateway-error.js';
import { checkStartable } from '../src/process/start.js';
import { readControlFile, reloadOutcomeFile, serveRecordFile, type ReloadOutcome, type ServeRecord } from '../src/process/serve-control.js';

/** How long the command waits for the primary's outcome (each new worker listening; not the old ones' drain). */
const outcomeTimeoutMs = 10 * 60_000;

export default class Reload extends GatewayCommand {
  static override description =
    'Replace the workers of a running `serve --workers N` one by one with the current configuration and code, without refusing a connection (the same as SIGHUP to its primary). The configuration is checked here and again by the primary; when it does not load, or a new worker does not start, nothing is replaced, the old workers keep serving and the reason is printed. Waits for the outcome.';
  static override examples = ['<%= config.bin %> reload', '<%= config.bin %> reload --json'];

  async run(): Promise<void> {
    const { flags } = await this.parse(Reload);
    this.jsonOutput = flags.json;
    try {
      // A configuration that does not load is refused before anything is signalled.
      const config = this.loadConfiguration(flags.config);
      checkStartable(config);
      const record = readControlFile<ServeRecord>(serveRecordFile(config.dataDir));
      if (!record || !alive(record.pid)) {
        throw new GatewayError(
          'serve_not_running',
          `no gateway serve --workers N is running with the data directory ${config.dataDir}; a single-process serve (workers: 1) takes a new configuration when it is restarted`,
        );
      }
      const before = readControlFile<ReloadOutcome>(reloadOutcomeFile(config.dataDir));
      const seen = before?.pid === record.pid ? before.seq : 0;
      process.kill(record.pid, 'SIGHUP');
      const deadline = Date.now() + outcomeTimeoutMs;
      let outcome: ReloadOutcome | undefined;
      while (Date.now() < deadline) {
        outcome = readControlFile<ReloadOutcome>(reloadOutcomeFile(config.dataDir));
        if (outcome?.pid === record.pid && outcome.seq > seen) break;
        if (!alive(record.pid)) throw new GatewayError('serve_not_running', `the serve primary (pid ${record.pid}) exited during the reload`);
        outcome = undefined;
        await sleep(100);
      }
      if (!outcome) throw new GatewayError('reload_refused', `the serve primary (pid ${record.pid}) did not report the reload within ${outcomeTimeoutMs / 60_000} minutes; see its log`);
      if (!outcome.ok) throw new GatewayError('reload_refused', `reload refused, the old workers keep serving: ${outcome.error}`);
      this.print({
        json: { pid: record.pid, url: record.url, seq: outcome.seq, workers: outcome.workers },
        text: `reloaded: ${outcome.workers.length} new workers (pids ${outcome.workers.join(', ')}) serve ${record.url}`,
      });
    } catch (error) {
      this.fail(error);
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
