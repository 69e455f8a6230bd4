// Job webhooks, Standard Webhooks style (standardwebhooks.com): when a job ends, its public
// object is POSTed to the client's webhook_url with `webhook-id` (the same on every retry, so
// the receiver can drop duplicates), `webhook-timestamp` and `webhook-signature` (HMAC-SHA256
// with the account's secret). The delivery row is written in the job's terminal transaction,
// so a job that ended always has its webhook; runners deliver due rows under a lease, retry
// non-2xx answers after each of `webhooks.retry_delays`, and never follow redirects.
import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';
import { request, type Agent } from '../util/http-client.js';
import type { Config } from '../config/load.js';
import { isPostgres } from '../db/dialect.js';
import type { Logger } from '../observability/logger.js';
import { newId } from '../util/ids.js';
import { guardedAgent } from './address-guard.js';

/** "v1," + base64(HMAC-SHA256(secret bytes, `${id}.${timestamp}.${body}`)); the secret is "whsec_" + base64. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** Inside the job's terminal transaction: one delivery per job (a second enqueue is a no-op). */
export async function enqueueWebhook(db: Knex | Knex.Transaction, delivery: { jobId: string; accountId: string; url: string; payload: unknown }, now = Date.now()): Promise<void> {
  await db('webhook_deliveries')
    .insert({
      id: newId('msg'),
      job_id: delivery.jobId,
      account_id: delivery.accountId,
      url: delivery.url,
      payload: JSON.stringify(delivery.payload),
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      created_at: now,
    })
    .onConflict('job_id')
    .ignore();
}

/** How much of a receiver's answer is read (then the connection is released). */
const maxAnswerBytes = 4096;
/**
 * A claimed delivery not finished this long after its attempt's time limit is claimable again
 * (its runner died); the margin covers reading the secret and storing the outcome.
 */
const leaseMarginMs = 60_000;

interface DeliveryRow {
  id: string;
  job_id: string;
  account_id: string;
  url: string;
  payload: string;
  attempts: number;
}

export class WebhookSender {
  private readonly agent: Agent;
  private readonly now: () => number;

  constructor(private readonly options: { db: Knex; logger: Logger; config: Config['webhooks']; owner: string; now?: () => number }) {
    this.agent = guardedAgent(options.config, options.config.timeoutMs);
    this.now = options.now ?? Date.now;
  }

  /** Claims due deliveries and attempts each once. Returns how many were attempted. */
  async deliverDue(limit = 20): Promise<number> {
    const { db } = this.options;
    const now = this.now();
    const candidates = db('webhook_deliveries')
      .select('id')
      .where({ status: 'pending' })
      .andWhere('next_attempt_at', '<=', now)
      .andWhere((q) => q.whereNull('lease_until').orWhere('lease_until', '<', now))
      .orderBy('next_attempt_at')
      .limit(limit);
    // Several runners on one PostgreSQL each take other rows; one SQLite statement is atomic by itself.
    if (isPostgres(db)) candidates.forUpdate().skipLocked();
    const claimed: DeliveryRow[] = await db('webhook_deliveries')
      .whereIn('id', candidates)
      .where({ status: 'pending' })
      .andWhere((q) => q.whereNull('lease_until').orWhere('lease_until', '<', now))
      .update({ lease_owner: this.options.owner, lease_until: now + this.options.config.timeoutMs + leaseMarginMs })
      .returning(['id', 'job_id', 'account_id', 'url', 'payload', 'attempts']);
    const outcomes = await Promise.allSettled(claimed.map((delivery) => this.attempt(delivery)));
    // An outcome that could not be stored leaves the row leased: it is attempted again once the lease expires.
    outcomes.forEach((outcome, index) => {
      if (outcome.status === 'rejected') this.options.logger.error({ err: outcome.reason, webhook_id: claimed[index]!.id }, 'webhook delivery outcome not stored');
    });
    return claimed.length;
  }

  private async attempt(delivery: DeliveryRow): Promise<void> {
    const { db, logger, config, owner } = this.options;
    // The secret is read now, not at enqueue: a rotated secret signs every later attempt.
    const account: { webhook_secret: string } | undefined = await db('accounts').where({ id: delivery.account_id }).first('webhook_secret');
    const timestamp = Math.floor(this.now() / 1000);
    let status: number | null = null;
    let problem: string | null = null;
    if (!account) problem = 'the account no longer exists';
    else {
      try {
        const response = await request(delivery.url, {
          method: 'POST',
          dispatcher: this.agent, // undici's request follows no redirect (no redirect interceptor is composed)
          headers: {
            'content-type': 'application/json',
            'user-agent': 'gateway-webhooks/1',
            'webhook-id': delivery.id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signWebhook(account.webhook_secret, delivery.id, timestamp, delivery.payload),
          },
          body: delivery.payload,
          signal: AbortSignal.timeout(config.timeoutMs),
        });
        status = response.statusCode;
        await discardAnswer(response.body);
        if (status < 200 || status >= 300) problem = `answered ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`;
      } catch (error) {
        problem = (error as Error).message;
      }
    }
    const attempts = delivery.attempts + 1;
    const base = db('webhook_deliveries').where({ id: delivery.id, lease_owner: owner });
    if (problem === null) {
      await base.update({ status: 'delivered', attempts, last_status: status, last_error: null, delivered_at: this.now(), lease_owner: null, lease_until: null });
      logger.info({ webhook_id: delivery.id, job_id: delivery.job_id, attempts }, 'webhook delivered');
      return;
    }
    const delay = config.retryDelaysMs[attempts - 1];
    await base.update({
      status: delay === undefined ? 'failed' : 'pending',
      attempts,
      last_status: status,
      last_error: problem.slice(0, 1000),
      next_attempt_at: this.now() + (delay ?? 0),
      lease_owner: null,
      lease_until: null,
    });
    logger.warn({ webhook_id: delivery.id, job_id: delivery.job_id, attempts, problem, retry_in_ms: delay ?? null }, delay === undefined ? 'webhook delivery gave up' : 'webhook delivery failed; will retry');
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }
}

/** Reads at most a few KB of the receiver's answer and drops the rest: the status is the outcome. */
async function discardAnswer(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<void> {
  let read = 0;
  try {
    for await (const chunk of body) {
      read += chunk.length;
      if (read > maxAnswerBytes) break;
    }
  } catch {
    // an answer cut short after its status line changes nothing
  } finally {
    body.destroy();
  }
}
