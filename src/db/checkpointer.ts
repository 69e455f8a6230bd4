// SQLite checkpoints off the request path. In WAL mode SQLite's default is that the connection
// whose commit pushes the WAL past 1,000 pages copies them into the database file, with two
// fsyncs, before that commit returns: with one connection serving every request, each such
// checkpoint stalled whichever requests were queued behind it (p99 at one connection 17-22 ms
// with it, 10-13 ms without, on the 2-core VM). A long-lived process (`serve`, `worker`)
// therefore turns the automatic checkpoint off on its pool's connection and checkpoints from a
// connection of its own, on a timer, on another thread of the pool: PASSIVE, so it waits for
// no reader or writer and blocks none. Once a checkpoint has copied every frame, the next
// writer starts the WAL over from its beginning, so the file stays small. The CLI's short-lived
// commands keep SQLite's automatic checkpoint.
import sqlite3 from 'sqlite3';
import type { Logger } from '../observability/logger.js';

export class SqliteCheckpointer {
  private readonly connection: sqlite3.Database;
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | undefined;
  private failing = false;
  /** Checkpoints begun and finished so far (they run one at a time: the n-th begun is the n-th finished). */
  begun = 0;
  finished = 0;

  constructor(
    filename: string,
    private readonly logger: Logger,
    intervalMs = 500,
  ) {
    this.connection = new sqlite3.Database(filename);
    this.connection.exec('PRAGMA synchronous = NORMAL;', (error) => error && this.logger.error({ err: error }, 'sqlite checkpointer: setup failed'));
    this.timer = setInterval(() => void this.checkpoint(), intervalMs).unref();
  }

  /** One PASSIVE checkpoint (none when the previous one is still running). */
  checkpoint(): Promise<void> {
    this.running ??= new Promise<void>((resolve) => {
      this.begun++;
      this.connection.all('PRAGMA wal_checkpoint(PASSIVE)', (error) => {
        this.running = undefined;
        this.finished++;
        // Logged once per run of failures: the next tick tries again.
        if (error && !this.failing) this.logger.error({ err: error }, 'sqlite checkpoint failed; retrying');
        this.failing = Boolean(error);
        resolve();
      });
    });
    return this.running;
  }

  /** Stops the timer and closes the connection (SQLite checkpoints the rest as the last connection closes). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    await new Promise<void>((resolve) => this.connection.close(() => resolve()));
  }
}
