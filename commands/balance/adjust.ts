import { Flags } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { Corrections } from '../../src/billing/corrections.js';
import { parseRub } from '../../src/util/money.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { presentCredit } from '../../src/cli/present.js';

export default class BalanceAdjust extends GatewayCommand {
  static override description =
    'Correct a balance by a positive or negative amount (ledger kind adjustment) with a reason; refused, nothing written, when it would take more than the available money (balance minus held). Written to the audit log';
  static override examples = [
    '<%= config.bin %> balance adjust --account acme --amount -12.5 --reason "double topup on 2026-11-20"',
    '<%= config.bin %> balance adjust --account acme --amount 3.2000 --reason "goodwill" --json',
  ];
  static override flags = {
    account: Flags.string({ description: 'account id or name', required: true }),
    amount: Flags.string({ description: 'amount in RUB, up to 4 decimals: +X or X adds, -X removes (e.g. -12.5)', required: true }),
    reason: Flags.string({ description: 'why (the ledger row\'s description and the audit log)', required: true }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(BalanceAdjust);
    await this.runWithServices(flags, async ({ accounts, db, ledger, now }) => {
      const amount = parseRub(flags.amount.trim().replace(/^\+/, ''), { allowNegative: true });
      if (amount === 0n) throw new RangeError('the amount must not be zero');
      if (flags.reason.trim() === '') throw new RangeError('--reason must not be empty');
      const account = await accounts.find(flags.account);
      const result = await new Corrections(db, ledger, now).adjust({ accountId: account.id, amountUnits: amount, reason: flags.reason, actor: cliActor() });
      // The same answer as POST /admin/v1/accounts/:id/adjust.
      const json = presentCredit(result, 'adjustment', flags.reason);
      return { json, text: `adjustment of ${json.amount_rub} RUB to ${account.name}: balance is now ${json.balance_rub} RUB (${json.transaction_id})` };
    });
  }
}
