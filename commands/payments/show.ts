import { Args } from '@oclif/core';
import { GatewayCommand, table } from '../../src/cli/base-command.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { findPaymentRecord } from '../../src/payments/payment-records.js';
import { presentOperatorPayment } from '../../src/payments/present-payment.js';

export default class PaymentsShow extends GatewayCommand {
  static override description = 'Show one payment as stored, with its refunds (`reconcile payments` compares it with the provider)';
  static override examples = ['<%= config.bin %> payments show pay_…', { description: 'JSON as GET /admin/v1/payments/{id}', command: '<%= config.bin %> payments show pay_… --json' }];
  static override args = { id: Args.string({ description: 'payment id (pay_…)', required: true }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(PaymentsShow);
    await this.runWithServices(flags, async ({ db }) => {
      const record = await findPaymentRecord(db, args.id);
      if (!record) throw new GatewayError('not_found', `no payment ${args.id}`);
      const json = presentOperatorPayment(record);
      const fields: [string, unknown][] = [
        ['payment', json.id],
        ['account', `${json.account_name} (${json.account_id})`],
        ['email', json.email],
        ['provider', `${json.provider} ${json.provider_payment_id ?? '(no id yet)'}`],
        ['status', json.failure ? `${json.status}: ${json.failure}` : json.status],
        ['amount', `${json.amount_rub} RUB, charged ${json.charged.amount} ${json.charged.currency}${json.rate ? ` at ${json.rate} RUB` : ''}`],
        ['credited', json.credited_rub === null ? '-' : `${json.credited_rub} RUB`],
        ['refunded', `${json.refunded_rub} RUB`],
        ['created', json.created_at],
        ['paid', json.paid_at ?? '-'],
      ];
      const refunds = json.refunds.map((refund) => ({ ...refund, amount: `${refund.amount.amount} ${refund.amount.currency}` }));
      const text = [
        ...fields.map(([name, value]) => `${`${name}:`.padEnd(10)}${String(value ?? '-')}`),
        '',
        refunds.length === 0 ? 'no refunds' : table(refunds, ['id', 'status', 'amount', 'share_rub', 'debit_rub', 'created_at']),
      ].join('\n');
      return { json, text };
    });
  }
}
