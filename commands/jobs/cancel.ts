import { Args } from '@oclif/core';
import { cliActor } from '../../src/audit/audit-log.js';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { cancelJob } from '../../src/pipeline/job-end.js';
import { presentJob } from '../../src/jobs/present.js';
import { openJobEnds } from '../../src/services.js';

export default class JobsCancel extends GatewayCommand {
  static override description =
    'Cancel a queued or running job: its hold is released, nothing is charged (the upstream may still finish its part). Written to the audit log';
  static override examples = ['<%= config.bin %> jobs cancel video_…', { description: 'exits 1 with the error on stderr if the job had already ended', command: '<%= config.bin %> jobs cancel music_… --json' }];
  static override args = { id: Args.string({ description: 'job id (video_… or music_…)', required: true }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(JobsCancel);
    await this.runWithServices(flags, async (services) => {
      // An error like any other (stderr, exit 1) when it had already ended, not a result.
      const job = await cancelJob(openJobEnds(services), args.id, cliActor());
      return { json: { ...presentJob(job, services.config.storage.tempTtlMs), cancelled: true }, text: `cancelled ${job.id}; hold released` };
    });
  }
}
