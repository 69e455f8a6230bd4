// The results of the jobs the bot created (video, music), delivered when the jobs end
// (docs/bot.md, "Video and music"). The bot owes a chat each job it created: a bot_deliveries
// row, written when the job is. A loop of the running bot looks at the pending rows every
// `deliveryPollMs`, reads their jobs (whichever process ran them: the rows are the truth, as
// for GET /v1/videos/{id}), and delivers each one that ended:
// - completed: the files, each within Telegram's 50 MB upload limit sent (sendVideo, a song's
//   tracks as one sendAudio each), a larger one as a download link (src/cabinet/file-links.ts)
//   that opens without a session: a user who came through the bot has no cabinet login, and a
//   link tapped in Telegram carries no cookie anyway;
// - failed or cancelled: the user is told in plain words (the job's end released its hold);
// - the user blocked the bot (a 403, or marked blocked already): nothing is sent, the row is
//   closed; the job itself is untouched — it was charged as the pipeline charges;
// - Telegram failing otherwise: tried again on the next rounds; after `maxAttempts` the
//   delivery is given up and the job's charge refunded (the gateway's fault, not the user's).
// The rows survive a restart, so a bot restarted while a job ran still delivers it.
import { InputFile } from 'grammy';
import type { Knex } from 'knex';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Job } from '../jobs/job.js';
import { FileLinks, fileLinkUrl } from '../cabinet/file-links.js';

import type { BotDeps } from './bot-app.js';
import { isUserGone } from './deliver.js';
import { kindName, mediaTexts, type MediaTexts, shownRub } from './media-texts.js';
import { type BotLanguage } from './texts.js';
import { refundUndelivered } from './refund-undelivered.js';

/** How often the pending deliveries are looked at. */
export const deliveryPollMs = 500;
/** Rounds a delivery Telegram keeps refusing (not a block) is tried before it is given up. */
const maxAttempts = 5;

export type DeliveryOutcome = 'delivered' | 'link' | 'failed' | 'blocked' | 'undeliverable';

interface PendingRow {
  job_id: string;
  telegram_id: string;
  chat_id: string;
  language: string;
  attempts: number;
}

export class JobDeliveries {
  constructor(
    private readonly db: Knex,
    private readonly now: () => number,
  ) {}

  async add(jobId: string, telegramId: number, chatId: number, language: BotLanguage): Promise<void> {
    await this.db('bot_deliveries').insert({ job_id: jobId, telegram_id: String(telegramId), chat_id: String(chatId), language, created_at: this.now() }).onConflict('job_id').ignore();
  }

  async pending(limit = 50): Promise<PendingRow[]> {
    return this.db('bot_deliveries').whereNull('delivered_at').orderBy('created_at').limit(limit);
  }

  async close(jobId: string, outcome: DeliveryOutcome): Promise<void> {
    await this.db('bot_deliveries').where({ job_id: jobId }).whereNull('delivered_at').update({ delivered_at: this.now(), outcome });
  }

  async attempted(jobId: string): Promise<void> {
    await this.db('bot_deliveries').where({ job_id: jobId }).increment('attempts', 1);
  }
}

/** The bot's delivery loop: runs until the bot stops (deps.stopping). */
export async function runDeliveries(deps: BotDeps, deliveries: JobDeliveries): Promise<void> {
  const signal = deps.stopping;
  while (!signal.aborted) {
    try {
      await deliverEnded(deps, deliveries);
    } catch (error) {
      deps.services.logger.error({ err: error }, 'the bot could not look at its pending deliveries');
    }
    await sleep(deliveryPollMs, undefined, { signal }).catch(() => undefined);
  }
}

/** One round: every pending delivery whose job has ended. */
export async function deliverEnded(deps: BotDeps, deliveries: JobDeliveries): Promise<void> {
  for (const row of await deliveries.pending()) {
    if (deps.stopping.aborted) return;
    const job = await deps.services.jobs.get(null, row.job_id);
    if (!job) {
      await deliveries.close(row.job_id, 'undeliverable');
      continue;
    }
    if (job.status === 'queued' || job.status === 'in_progress') continue;
    await deliverOne(deps, deliveries, row, job);
  }
}

async function deliverOne(deps: BotDeps, deliveries: JobDeliveries, row: PendingRow, job: Job): Promise<void> {
  const chatId = Number(row.chat_id);
  const t = mediaTexts[row.language === 'ru' ? 'ru' : 'en'];
  const settings = await deps.people.get(Number(row.telegram_id), undefined);
  if (settings.blockedAt !== undefined) {
    await deliveries.close(job.id, 'blocked');
    return;
  }
  try {
    const outcome = await send(deps, chatId, t, job);
    await deliveries.close(job.id, outcome);
  } catch (error) {
    if (isUserGone(error)) {
      await deps.userGone(row.telegram_id);
      await deliveries.close(job.id, 'blocked');
      return;
    }
    deps.services.logger.warn({ err: error, job_id: job.id, attempts: row.attempts + 1 }, "a job's result could not be delivered to its chat");
    await deliveries.attempted(job.id);
    if (row.attempts + 1 < maxAttempts) return;
    await deliveries.close(job.id, 'undeliverable');
    if (job.status === 'completed' && job.chargedUnits > 0n) await refundUndelivered(deps.services, job.accountId, job.id);
    await deps.api.sendMessage(chatId, t.notDelivered).catch(() => undefined);
  }
}

async function send(deps: BotDeps, chatId: number, t: MediaTexts, job: Job): Promise<DeliveryOutcome> {
  const { services, api } = deps;
  const what = kindName(t, job.kind);
  if (job.status !== 'completed') {
    await api.sendMessage(chatId, t.jobFailed(what));
    return 'failed';
  }
  const fileIds = job.result?.fileIds ?? [];
  const files = await services.files.getMany(job.accountId, fileIds);
  const caption = t.imageCaption(shownRub(job.chargedUnits));
  let outcome: DeliveryOutcome = 'delivered';
  for (const [index, file] of files.entries()) {
    const last = index === files.length - 1;
    if (file.bytes > deps.uploadLimitBytes) {
      const link = await new FileLinks(services.db, services.now).create({ accountId: job.accountId, fileId: file.id }, deps.config.downloadLinkTtlMs);
      await api.sendMessage(chatId, t.tooLarge(what, fileLinkUrl(services.config.cabinet.publicUrl, link.token), link.expiresAt), { parse_mode: 'HTML' });
      outcome = 'link';
      continue;
    }
    const bytes = Buffer.from(await services.files.read(file));
    const extension = file.mediaType.split('/')[1]?.replace('mpeg', 'mp3') ?? 'bin';
    const upload = new InputFile(bytes, `${job.kind}-${job.id}-${index + 1}.${extension}`);
    if (job.kind === 'music') {
      const track = job.result?.tracks?.[index];
      await api.sendAudio(chatId, upload, { title: track?.title ?? undefined, ...(last ? { caption } : {}) });
    } else {
      await api.sendVideo(chatId, upload, { caption, supports_streaming: true });
    }
  }
  return outcome;
}
