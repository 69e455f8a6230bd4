import { Args } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { presentBatch, presentCode } from '../../src/cli/present-codes.js';

export default class CodesDisable extends GatewayCommand {
  static override description =
    'Disable a whole batch of redemption codes (cbat_…) or one code (code_…): it credits nothing from then on; what was redeemed stays. Audited (code_batch.disable, code.disable); disabling it again changes nothing';
  static override examples = [
    '<%= config.bin %> codes disable cbat_…',
    { description: 'one code (its id from `codes ls --batch`); JSON: the batch or the code as `codes ls` prints it', command: '<%= config.bin %> codes disable code_… --json' },
  ];
  static override args = { id: Args.string({ description: 'a batch id (cbat_…) or a code id (code_…), from `codes ls`', required: true }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(CodesDisable);
    await this.runWithServices(flags, async ({ codes }) => {
      const disabled = await codes.disable(args.id, cliActor());
      if (disabled.kind === 'batch') {
        const json = presentBatch(disabled.batch);
        return { json, text: `batch ${json.id} (${json.count} codes of ${json.amount_rub} RUB) is disabled since ${json.disabled_at}` };
      }
      const json = presentCode(disabled.code);
      return { json, text: `code ${json.id} (…-${json.hint}) is disabled since ${json.disabled_at}` };
    });
  }
}
