// Shared shape of every `gateway` command: --config and --json; the config is loaded once,
// services are opened, the command's work returns a typed result, which is printed either
// as JSON (alone on stdout) or as readable text. Errors go to stderr with exit code 1
// (configuration errors: 78, as sysexits' EX_CONFIG); with --json as {"error": {"code",
// "message"}}, the code from the error catalog. A database that cannot be used (not reachable,
// not migrated, no directory) and a port already taken are one line that says what to do
// (InfrastructureError), never a stack.
import { Command, Flags } from '@oclif/core';
import { loadConfig, type Config } from '../config/load.js';
import { explainDatabaseFailure } from '../db/errors.js';
import { errorCatalog, type CatalogEntry } from '../errors/catalog.js';
import { toGatewayError } from '../errors/to-gateway-error.js';
import { openServices, type Services } from '../services.js';

export interface CommandOutput {
  /** What --json prints. */
  json: unknown;
  /** What a person reads; defaults to the JSON, indented. */
  text?: string;
  /** Non-zero to fail after printing (e.g. `models check` found errors). */
  exitCode?: number;
}

export abstract class GatewayCommand extends Command {
  static override baseFlags = {
    config: Flags.string({ description: 'path to the configuration file (default: GATEWAY_CONFIG or config/gateway.yaml)', helpGroup: 'GLOBAL' }),
    json: Flags.boolean({ description: 'print machine-readable JSON only', default: false, helpGroup: 'GLOBAL' }),
  };

  protected jsonOutput = false;
  /** Set once loaded, so a failure can name the database and the migrate command of this config. */
  private loaded: { config: Config; configPath: string | undefined } | undefined;

  protected loadConfiguration(configPath: string | undefined): Config {
    const config = loadConfig({ configPath, cacheDir: this.config.cacheDir });
    this.loaded = { config, configPath };
    return config;
  }

  /**
   * Opens the services, runs `work`, prints its result, closes the services. Only a command that
   * migrates (`createDatabase`) may create a missing SQLite file; the others say to run migrate.
   */
  protected async runWithServices(
    flags: { config?: string; json: boolean },
    work: (services: Services) => Promise<CommandOutput>,
    options: { createDatabase?: boolean } = {},
  ): Promise<void> {
    this.jsonOutput = flags.json;
    let services: Services | undefined;
    let output: CommandOutput;
    try {
      const config = this.loadConfiguration(flags.config);
      services = openServices(config, { createDatabase: options.createDatabase });
      output = await work(services);
    } catch (error) {
      await services?.close().catch(() => undefined);
      return this.fail(error);
    }
    await services.close();
    this.print(output);
    if (output.exitCode) this.exit(output.exitCode);
  }

  protected print(output: CommandOutput): void {
    if (this.jsonOutput) process.stdout.write(`${JSON.stringify(output.json, null, 2)}\n`);
    else process.stdout.write(`${output.text ?? JSON.stringify(output.json, null, 2)}\n`);
  }

  protected fail(failure: unknown): never {
    const migrate = `gateway migrate${this.loaded?.configPath ? ` --config ${this.loaded.configPath}` : ''}`;
    const error = (this.loaded && explainDatabaseFailure(failure, this.loaded.config.database, migrate)) || failure;
    // The catalog (src/errors/catalog.ts) names what is known: the user's to fix, one line. The
    // message stays the error's own (operators' scripts match it); the code is the catalog's.
    const known = toGatewayError(error, 'cli');
    const message = error instanceof Error ? error.message : String(error);
    if (this.jsonOutput) process.stderr.write(`${JSON.stringify({ error: { code: known?.code ?? 'internal_error', message } })}\n`);
    else process.stderr.write(`error: ${message}\n`);
    if (!known && error instanceof Error && error.stack && !this.jsonOutput) process.stderr.write(`${error.stack}\n`);
    this.exit(known ? (errorCatalog[known.code] as CatalogEntry).exitCode ?? 1 : 1);
  }
}

/** Fixed-width table for readable output. */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((row) => columns.map((column) => (row[column] === null || row[column] === undefined ? '-' : String(row[column]))));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((c) => c[i]!.length)));
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n');
}

export { isoTime } from '../util/iso-time.js';
