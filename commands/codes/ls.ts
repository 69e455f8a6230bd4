import { Flags } from '@oclif/core';
import { GatewayCommand, table } from '../../src/cli/base-command.js';
import { wholeList } from '../../src/cli/list-output.js';
import { presentBatch, presentBatchDetail } from '../../src/cli/present-codes.js';

export default class CodesLs extends GatewayCommand {
  static override description =
    'List batches of redemption codes, newest first, with how often their codes were redeemed; with --batch, the codes of one batch (their last four characters, uses left, redemptions, disabled; never the codes themselves)';
  static override examples = [
    '<%= config.bin %> codes ls',
    '<%= config.bin %> codes ls --batch cbat_…',
    { description: 'JSON: {object: "list", data: [batches], has_more: false}; with --batch: {object: "list", data: [{id, hint, uses_left, disabled_at, redemptions}], has_more: false}', command: '<%= config.bin %> codes ls --json' },
  ];
  static override flags = { batch: Flags.string({ description: 'a batch id (cbat_…): list its codes instead of the batches' }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(CodesLs);
    await this.runWithServices(flags, async ({ codes }) => {
      if (flags.batch === undefined) {
        const rows = (await codes.listBatches()).map(presentBatch);
        return { json: wholeList(rows), text: table(rows.map((row) => ({ ...row })), ['id', 'amount_rub', 'uses_per_code', 'count', 'redeemed', 'expires_at', 'disabled_at', 'note', 'created_by', 'created_at']) };
      }
      const detail = presentBatchDetail(await codes.showBatch(flags.batch));
      const heading = `${detail.id}: ${detail.count} code${detail.count === 1 ? '' : 's'} of ${detail.amount_rub} RUB, ${detail.uses_per_code} use${detail.uses_per_code === 1 ? '' : 's'} each, ${detail.redeemed} redeemed; expires ${detail.expires_at ?? 'never'}${detail.disabled_at === null ? '' : `; disabled ${detail.disabled_at}`}`;
      const text = table(
        detail.codes.map((code) => ({ ...code, code: `…-${code.hint}` })),
        ['id', 'code', 'uses_left', 'redemptions', 'disabled_at'],
      );
      return { json: wholeList(detail.codes), text: `${heading}\n${text}` };
    });
  }
}
