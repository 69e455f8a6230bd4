import { Flags } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { Corrections } from '../../src/billing/corrections.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { presentRefund } from '../../src/cli/present.js';

export default class BalanceRefund extends GatewayCommand {
  static override description =
    'Refund the charge of a request, whole and once (ledger kind refund): by its request id (x-request-id; for a job, the request that submitted it) or by a job id. A second refund is refused. Written to the audit log';
  static override examples = [
    '<%= config.bin %> balance refund --request-id req_… --reason "upstream returned garbage"',
    { description: 'a video or music job by its id', command: '<%= config.bin %> balance refund --request-id video_… --json' },
  ];
  static override flags = {
    'request-id': Flags.string({ description: 'the request id of the charge, or a job id (video_…, music_…)', required: true }),
    reason: Flags.string({ description: "why (the refund's description and the audit log)" }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(BalanceRefund);
    await this.runWithServices(flags, async ({ db, ledger, now }) => {
      const result = await new Corrections(db, ledger, now).refund({ reference: flags['request-id'], reason: flags.reason ?? null, actor: cliActor() });
      const json = presentRefund(result, flags.reason ?? null);
      return { json, text: `refunded ${json.amount_rub} RUB of ${result.jobId ?? result.requestId} to ${result.accountId}: balance is now ${json.balance_rub} RUB (${json.transaction_id})` };
    });
  }
}
