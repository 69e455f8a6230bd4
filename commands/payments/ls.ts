import { Flags } from '@oclif/core';
import { GatewayCommand, table } from '../../src/cli/base-command.js';
import { limitedList } from '../../src/cli/list-output.js';
import { listPaymentRecords } from '../../src/payments/payment-records.js';
import { paymentStatuses, presentOperatorPayment } from '../../src/payments/present-payment.js';

export default class PaymentsLs extends GatewayCommand {
  static override description =
    "List customers' payments (top-ups through YooKassa or Stripe), newest first, with their account and refunds. Read from the database: no provider is asked";
  static override examples = [
    '<%= config.bin %> payments ls',
    '<%= config.bin %> payments ls --account acme --status succeeded',
    { description: 'JSON as GET /admin/v1/payments: {object: "list", data: [payments with refunds], has_more}; the next page with --before <last id>', command: '<%= config.bin %> payments ls --limit 100 --json' },
  ];
  static override flags = {
    account: Flags.string({ description: 'only this account (id or name)' }),
    status: Flags.string({ description: 'only payments in this status', options: [...paymentStatuses] }),
    limit: Flags.integer({ description: 'at most this many', default: 50, min: 1, max: 500 }),
    before: Flags.string({ description: 'only payments older than this one (the last id of the previous page)' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(PaymentsLs);
    await this.runWithServices(flags, async ({ accounts, db }) => {
      const accountId = flags.account === undefined ? undefined : (await accounts.find(flags.account)).id;
      // One row beyond the limit, only to know whether there are more.
      const records = await listPaymentRecords(db, { accountId, status: flags.status as (typeof paymentStatuses)[number] | undefined, before: flags.before, limit: flags.limit + 1 });
      const list = limitedList(records, flags.limit);
      const rows = list.data.map(presentOperatorPayment);
      const text =
        rows.length === 0
          ? 'no payments'
          : table(
              rows.map((row) => ({ ...row, charged: `${row.charged.amount} ${row.charged.currency}`, refunds: row.refunds.length })),
              ['id', 'provider', 'status', 'account_name', 'amount_rub', 'charged', 'credited_rub', 'refunded_rub', 'refunds', 'created_at'],
            ) + (list.has_more ? `\nmore: --before ${rows.at(-1)!.id}` : '');
      return { json: { ...list, data: rows }, text };
    });
  }
}
