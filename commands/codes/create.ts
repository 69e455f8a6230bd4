import { Flags } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { parseExpires } from '../../src/auth/key-policy.js';
import { parseRub } from '../../src/util/money.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { codesCsv, presentCreatedBatch } from '../../src/cli/present-codes.js';
import { maxCodesPerBatch, maxNoteLength, maxUsesPerCode } from '../../src/codes/create-batch.js';

export default class CodesCreate extends GatewayCommand {
  static override description =
    'Create a batch of redemption codes: each credits --amount RUB as a bonus to up to --uses accounts, once each, when a customer redeems it in the cabinet. ' +
    'The codes (ABCD-EFGH-JKLM-NPQR-STUV) are printed once, as CSV on stdout, and stored only as hashes; creating them is audited (code_batch.create).';
  static override examples = [
    { description: '100 single-use codes of 500 RUB for 30 days, saved as CSV', command: '<%= config.bin %> codes create --amount 500 --count 100 --expires 30d > codes.csv' },
    { description: 'one code that three accounts may redeem', command: '<%= config.bin %> codes create --amount 100 --uses 3 --note "conference 2027"' },
    { description: 'JSON: {batch: {id, amount_rub, uses_per_code, count, redeemed, expires_at, disabled_at, note, created_by, created_at}, codes: ["ABCD-…"]}', command: '<%= config.bin %> codes create --amount 500 --count 2 --json' },
  ];
  static override flags = {
    amount: Flags.string({ description: 'RUB each redemption credits, up to 4 decimals (e.g. 500 or 99.90)', required: true }),
    count: Flags.integer({ description: `how many codes (1-${maxCodesPerBatch})`, default: 1, min: 1, max: maxCodesPerBatch }),
    expires: Flags.string({ description: 'when the codes stop working: a duration from now (30d, 12h, 2w), a date (2027-01-31), an ISO time, or never', default: 'never' }),
    uses: Flags.integer({ description: `how many accounts each code may credit, once each (1-${maxUsesPerCode})`, default: 1, min: 1, max: maxUsesPerCode }),
    note: Flags.string({ description: `what the batch is for (up to ${maxNoteLength} characters); the customer who redeems a code sees it, and the ledger row names it` }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(CodesCreate);
    await this.runWithServices(flags, async ({ codes, now }) => {
      const at = now();
      const made = presentCreatedBatch(
        await codes.create({ amountUnits: parseRub(flags.amount), count: flags.count, usesPerCode: flags.uses, expiresAt: parseExpires(flags.expires, at), note: flags.note ?? null, actor: cliActor(), at }),
      );
      const { batch } = made;
      if (!flags.json) {
        // stdout is the CSV alone (redirect it to a file); what a person should know goes to stderr.
        const until = batch.expires_at === null ? 'never expire' : `work until ${batch.expires_at}`;
        process.stderr.write(
          `${batch.count} code${batch.count === 1 ? '' : 's'} of ${batch.amount_rub} RUB in batch ${batch.id}, each for ${batch.uses_per_code} account${batch.uses_per_code === 1 ? '' : 's'}; they ${until}.\n` +
            'This is the only time the codes are shown: keep the CSV.\n',
        );
      }
      return { json: made, text: codesCsv(made) };
    });
  }
}
