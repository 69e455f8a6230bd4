import { Flags } from '@oclif/core';
import { formatRub } from '../src/util/money.js';
import {
  describeDifference,
  differencesExitCode,
  presentProviders,
  presentReconcileRows,
  presentUnrecorded,
  reconcile,
} from '../src/billing/reconcile-report.js';
import { toCsv } from '../src/billing/usage-report.js';
import { GatewayCommand, table, type CommandOutput } from '../src/cli/base-command.js';
import { wholeList } from '../src/cli/list-output.js';
import { parsePeriod } from '../src/cli/period.js';

const csvColumns = [
  'provider', 'upstream_model', 'models', 'requests', 'vendor_requests', 'estimated_requests', 'input_tokens', 'vendor_input_tokens',
  'cached_input_tokens', 'vendor_cached_input_tokens', 'output_tokens', 'vendor_output_tokens', 'reasoning_tokens', 'charged_rub', 'catalog_rub',
  'refunded_rub', 'differences',
];

export default class Reconcile extends GatewayCommand {
  static override description =
    'Compare what the gateway charged over a period with the catalog\'s prices and with what each upstream reports through its usage API, by provider and upstream model; exits 3 when anything differs';
  static override examples = [
    '<%= config.bin %> reconcile --since 2026-11-01 --until 2026-12-01',
    { description: 'in a daily cron job: exit 3 (differences) alerts', command: '<%= config.bin %> reconcile --since "$(date -u -d yesterday +%F)" --until "$(date -u +%F)" --json' },
    '<%= config.bin %> reconcile --since 2026-11-01 --csv > november.csv',
  ];
  static override flags = {
    since: Flags.string({ description: 'start, inclusive: YYYY-MM-DD (UTC midnight) or an ISO 8601 time', required: true }),
    until: Flags.string({ description: 'end, exclusive: YYYY-MM-DD or an ISO 8601 time (default: now)' }),
    csv: Flags.boolean({ description: 'print CSV (RFC 4180: header row, CRLF), one row per provider and upstream model', default: false, exclusive: ['json'] }),
  };

  private csv = false;

  async run(): Promise<void> {
    const { flags } = await this.parse(Reconcile);
    this.csv = flags.csv;
    await this.runWithServices(flags, async (services) => {
      const period = parsePeriod(flags, services.now());
      const result = await reconcile(services, period);
      const rows = presentReconcileRows(result.rows);
      const providers = presentProviders(result.providers);
      const unrecorded = presentUnrecorded(result.unrecorded);
      const totals = {
        charged_rub: formatRub(result.rows.reduce((sum, row) => sum + (row.recorded?.chargedUnits ?? 0n), 0n)),
        refunded_rub: formatRub(result.rows.reduce((sum, row) => sum + (row.recorded?.refundedUnits ?? 0n), 0n)),
        unrecorded_rub: formatRub(result.unrecorded.reduce((sum, row) => sum + row.chargedUnits, 0n)),
      };
      const json = {
        ...wholeList(rows),
        since: new Date(period.since).toISOString(),
        until: new Date(period.until).toISOString(),
        differs: result.differs,
        providers,
        unrecorded,
        totals,
      };
      const exitCode = result.differs ? differencesExitCode : 0;
      if (flags.csv) {
        const csvRows = rows.map((row) => ({
          ...row,
          models: row.models.join(' '),
          vendor_requests: row.vendor?.requests ?? null,
          vendor_input_tokens: row.vendor?.input_tokens ?? null,
          vendor_cached_input_tokens: row.vendor?.cached_input_tokens ?? null,
          vendor_output_tokens: row.vendor?.output_tokens ?? null,
          differences: row.differences.map((difference) => difference.what).join(' '),
        }));
        return { json, text: toCsv(csvRows, csvColumns), exitCode };
      }
      const lines = result.rows.flatMap((row) => row.differences.map((difference) => describeDifference(row.provider, row.upstreamModel, difference)));
      for (const provider of result.providers) if (provider.usageApi === 'failed') lines.push(`${provider.provider}: its usage API could not be read: ${provider.detail}`);
      const text = [
        `Reconciliation ${json.since} — ${json.until}`,
        '',
        table(providers, ['provider', 'kind', 'usage_api', 'detail']),
        '',
        table(
          rows.map((row) => ({ ...row, models: row.models.join(' '), vendor_requests: row.vendor?.requests, vendor_input_tokens: row.vendor?.input_tokens, vendor_output_tokens: row.vendor?.output_tokens })),
          ['provider', 'upstream_model', 'models', 'requests', 'vendor_requests', 'input_tokens', 'vendor_input_tokens', 'output_tokens', 'vendor_output_tokens', 'charged_rub', 'catalog_rub'],
        ),
        ...(unrecorded.length > 0 ? ['', 'Charges without a usage record (media and jobs; not re-priced):', table(unrecorded, ['model', 'provider', 'upstream_model', 'requests', 'charged_rub'])] : []),
        '',
        lines.length === 0 ? 'Nothing differs.' : `Differences:\n${lines.map((line) => `  ${line}`).join('\n')}`,
      ].join('\n');
      return { json, text, exitCode };
    });
  }

  protected override print(output: CommandOutput): void {
    if (this.csv) process.stdout.write(output.text!);
    else super.print(output);
  }
}
