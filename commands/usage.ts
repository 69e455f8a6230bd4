import { Flags } from '@oclif/core';
import { toCsv, usageColumns, usageGroupings, usageSummary, type UsageGrouping } from '../src/billing/usage-report.js';
import { GatewayCommand, table, type CommandOutput } from '../src/cli/base-command.js';
import { parsePeriod } from '../src/cli/period.js';

export default class Usage extends GatewayCommand {
  static override description =
    'Usage over a period by model, key, account or UTC day: requests, tokens (input, cached, output, reasoning), media requests and units (images, characters of speech, seconds of audio and video) and the RUB charged — the ledger\'s charges of the period, exactly';
  static override examples = [
    '<%= config.bin %> usage --since 2026-11-01 --until 2026-12-01 --by account',
    '<%= config.bin %> usage --since 2026-11-01 --by model --account acme --json',
    { description: 'CSV (RFC 4180, a header row) for a spreadsheet', command: '<%= config.bin %> usage --since 2026-11-01 --until 2026-11-08 --by day --csv > week.csv' },
  ];
  static override flags = {
    since: Flags.string({ description: 'start, inclusive: YYYY-MM-DD (UTC midnight) or an ISO 8601 time', required: true }),
    until: Flags.string({ description: 'end, exclusive: YYYY-MM-DD or an ISO 8601 time (default: now)' }),
    by: Flags.string({ description: 'group by', options: [...usageGroupings], default: 'model' }),
    account: Flags.string({ description: 'only this account (id or name)' }),
    csv: Flags.boolean({ description: 'print CSV (RFC 4180: header row, CRLF) instead of a table', default: false, exclusive: ['json'] }),
  };

  private csv = false;

  async run(): Promise<void> {
    const { flags } = await this.parse(Usage);
    this.csv = flags.csv;
    await this.runWithServices(flags, async ({ accounts, db, now }) => {
      const { since, until } = parsePeriod(flags, now());
      const account = flags.account ? await accounts.find(flags.account) : undefined;
      const by = flags.by as UsageGrouping;
      // The same report GET /admin/v1/usage answers.
      const json = await usageSummary(db, { since, until, by, accountId: account?.id });
      const columns = usageColumns(by);
      const text = flags.csv ? toCsv(json.data, columns) : `${table([...json.data, { [by]: 'TOTAL', ...json.totals }], columns)}`;
      return { json, text };
    });
  }

  protected override print(output: CommandOutput): void {
    if (this.csv) process.stdout.write(output.text!);
    else super.print(output);
  }
}
