import { Args } from '@oclif/core';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { JobNotFoundError, presentJob } from '../../src/jobs/present.js';
import { openJobStore } from '../../src/services.js';

export default class JobsShow extends GatewayCommand {
  static override description = 'Show one async job: its public object plus what the operator needs (upstream, hold, errors)';
  static override examples = ['<%= config.bin %> jobs show video_…', '<%= config.bin %> jobs show music_… --json'];
  static override args = { id: Args.string({ description: 'job id (video_… or music_…)', required: true }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(JobsShow);
    await this.runWithServices(flags, async (services) => {
      const job = await openJobStore(services).get(null, args.id);
      if (!job) throw new JobNotFoundError(args.id);
      const json = presentJob(job, services.config.storage.tempTtlMs);
      return { json };
    });
  }
}
