import { Args, Flags } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { parseRub } from '../../src/util/money.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { openCommandPayments } from '../../src/cli/command-payments.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { findPaymentRecord } from '../../src/payments/payment-records.js';
import { presentPaymentRefund } from '../../src/payments/present-payment.js';

export default class PaymentsRefund extends GatewayCommand {
  static override description =
    "Refund a succeeded payment to the customer's card through its provider (all that is left of it, or --amount). The money leaves the balance first (a `refund` ledger row); refused while it is already spent unless --allow-spent, which takes the balance to zero, never below. Audited (payment.refund). Needs the provider's secret in the environment, as serve does";
  static override examples = [
    '<%= config.bin %> payments refund pay_… --reason "customer asked"',
    '<%= config.bin %> payments refund pay_… --amount 100.50',
    { description: 'part of the money is spent: refund the card anyway and take the balance to zero', command: '<%= config.bin %> payments refund pay_… --allow-spent --json' },
  ];
  static override args = { id: Args.string({ description: 'payment id (pay_…)', required: true }) };
  static override flags = {
    amount: Flags.string({ description: "RUB of the payment's credit to give back, up to 4 decimals (default: all not yet refunded)" }),
    'allow-spent': Flags.boolean({ description: 'when part of the money is spent: refund anyway, taking the balance to zero (never below)', default: false }),
    reason: Flags.string({ description: 'why (the ledger row and the audit log)' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(PaymentsRefund);
    await this.runWithServices(flags, async (services) => {
      const amountUnits = flags.amount === undefined ? undefined : parseRub(flags.amount);
      if (amountUnits === 0n) throw new RangeError('the amount must be more than zero');
      const record = await findPaymentRecord(services.db, args.id);
      if (!record) throw new GatewayError('not_found', `no payment ${args.id}`);
      const opened = await openCommandPayments(services);
      try {
        const refund = await opened.refunds.refund({ paymentId: args.id, amountUnits, allowSpent: flags['allow-spent'], actor: cliActor(), reason: flags.reason ?? null });
        const json = presentPaymentRefund(refund, record.payment.currency);
        const what = `${json.amount.amount} ${json.amount.currency} of ${record.payment.id}`;
        const taken = `${json.debit_rub} RUB taken from the balance of ${record.accountName} (${json.share_rub} RUB of the credit)`;
        const text =
          refund.status === 'succeeded'
            ? `${json.id}: refunded ${what} to the card; ${taken}`
            : refund.status === 'pending'
              ? `${json.id}: the refund of ${what} is asked of ${record.payment.provider}, not finished yet (the sweeper of serve and worker asks again); ${taken}`
              : `${json.id}: ${record.payment.provider} refused the refund of ${what}: nothing was refunded, the balance of ${record.accountName} is as it was`;
        return { json, text };
      } finally {
        await opened.payments.close();
      }
    });
  }
}
