import { Args } from '@oclif/core';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { JobAlreadyEndedError, JobNotFoundError, presentJob } from '../../src/jobs/present.js';
import { openJobStore } from '../../src/services.js';

export default class JobsCancel extends GatewayCommand {
  static override description = 'Cancel a queued or running job: its hold is released, nothing is charged (the upstream may still finish its part)';
  static override examples = ['<%= config.bin %> jobs cancel video_…', { description: 'exits 1 with the error on stderr if the job had already ended', command: '<%= config.bin %> jobs cancel music_… --json' }];
  static override args = { id: Args.string({ description: 'job id (video_… or music_…)', required: true }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(JobsCancel);
    await this.runWithServices(flags, async (services) => {
      const store = openJobStore(services);
      const before = await store.get(null, args.id);
      if (!before) throw new JobNotFoundError(args.id);
      const cancelled = await store.cancel(args.id);
      const job = (await store.get(null, args.id))!;
      // An error like any other (stderr, exit 1), not a result: it printed the job on stdout and exited 1 silently.
      if (!cancelled) throw new JobAlreadyEndedError(job.id, job.status);
      return { json: { ...presentJob(job, services.config.storage.tempTtlMs), cancelled }, text: `cancelled ${job.id}; hold released` };
    });
  }
}
