import { Flags } from '@oclif/core';
import { GatewayCommand } from '../../src/cli/base-command.js';
import { limitedList } from '../../src/cli/list-output.js';
import { presentJobSummary } from '../../src/jobs/present.js';
import type { JobKind } from '../../src/model/jobs.js';
import { openJobStore } from '../../src/services.js';

const kindsOfType: Record<string, JobKind[]> = { video: ['video', 'video_upscale'], music: ['music'], response: ['response'] };

export default class JobsList extends GatewayCommand {
  static override description = 'List async jobs (videos, video upscales, music, background responses), newest first';
  static override examples = ['<%= config.bin %> jobs ls', '<%= config.bin %> jobs ls --status in_progress --type video --json'];
  static override flags = {
    status: Flags.string({ description: 'only jobs in this status', options: ['queued', 'in_progress', 'completed', 'failed', 'cancelled'] }),
    type: Flags.string({ description: 'only videos (incl. upscales), music or background responses', options: ['video', 'music', 'response'] }),
    account: Flags.string({ description: 'only this account (id or name)' }),
    limit: Flags.integer({ description: 'at most this many', default: 50, min: 1, max: 1000 }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(JobsList);
    await this.runWithServices(flags, async (services) => {
      const account = flags.account ? await services.accounts.find(flags.account) : undefined;
      // One row beyond the limit, only to know whether there are more.
      const rows = await openJobStore(services).list({
        accountId: account?.id,
        status: flags.status as never,
        kind: flags.type ? kindsOfType[flags.type] : undefined,
        limit: flags.limit + 1,
      });
      const list = limitedList(rows, flags.limit);
      const jobs = list.data;
      const json = { ...list, data: jobs.map((job) => presentJobSummary(job, services.config.storage.tempTtlMs)) };
      const text =
        jobs.length === 0
          ? 'no jobs'
          : jobs.map((job) => `${job.id}  ${job.kind.padEnd(13)} ${job.status.padEnd(11)} ${String(job.progress).padStart(3)}%  ${job.model}  ${new Date(job.createdAt).toISOString()}`).join('\n') +
            (list.has_more ? `\nmore: raise --limit (now ${flags.limit})` : '');
      return { json, text };
    });
  }
}
