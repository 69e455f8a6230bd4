// What must hold after every round, once the processes are up again. Things that settle on
// their own (a killed process's holds released by a live one's sweep, jobs finishing, usage
// records written in batches) are polled until they hold or the settle window ends — never a
// fixed sleep then an assertion. Each loss is counted once, by the id of what was lost, however
// many rounds still see it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Cluster, UnexpectedExit } from './cluster.js';
import type { HostileOutcome } from './hostile-inputs.js';
import { type ChaosPayment, paymentProblems } from './payments.js';

export const lossKinds = [
  'holds leaked',
  'charges missing usage records',
  'jobs double-charged',
  'jobs submitted upstream twice',
  'jobs with wrong money',
  'jobs unfinished',
  'jobs duplicated by a replay',
  'ledger mismatches',
  'payments credited twice',
  'payments paid, not credited',
  'payments credited without being paid',
  'processes killed by input',
  'processes unhealthy',
  'hostile inputs mishandled',
] as const;
export type LossKind = (typeof lossKinds)[number];

export type Findings = Map<LossKind, string[]>;

const terminalJobStatuses = ['completed', 'failed', 'cancelled'];
const chatModels = ['sim/chat', 'sim/reasoning'];

export interface RoundEvidence {
  readonly round: number;
  readonly hostileOutcomes: readonly HostileOutcome[];
  readonly replayMismatches: readonly string[];
  readonly exits: readonly UnexpectedExit[];
  readonly payments: readonly ChaosPayment[];
}

/** The line of a dead process's output that says why (an error's message), else its last line. */
function lastError(output: string): string {
  const lines = output.trim().split('\n');
  const error = lines.reverse().find((line) => /error/i.test(line) && !/^\s+at /.test(line));
  return (error ?? lines[0] ?? '').trim().slice(0, 300);
}

export class Checker {
  private readonly counted = new Map<LossKind, Set<string>>(lossKinds.map((kind) => [kind, new Set<string>()]));
  /** Jobs failed `submit_uncertain` so far: not a loss (released uncharged), shown in the summary. */
  uncertainSubmits = 0;
  /** Every top-up of the run so far: each is checked again every round. */
  private readonly payments: ChaosPayment[] = [];

  constructor(
    private readonly cluster: Cluster,
    /** How long things that settle on their own may take after the round. */
    private readonly settleMs: number,
  ) {}

  /** Totals over the run so far, by kind. */
  totals(): Record<LossKind, number> {
    return Object.fromEntries(lossKinds.map((kind) => [kind, this.counted.get(kind)!.size])) as Record<LossKind, number>;
  }

  /** Runs the checks of one round; returns what it found that no earlier round had. */
  async check(evidence: RoundEvidence): Promise<Findings> {
    const findings: Findings = new Map();
    const add = (kind: LossKind, id: string, detail: string) => {
      const seen = this.counted.get(kind)!;
      if (seen.has(id)) return;
      seen.add(id);
      findings.set(kind, [...(findings.get(kind) ?? []), detail]);
    };

    for (const exit of evidence.exits) {
      add('processes killed by input', `${exit.role}:${exit.pid}`, `${exit.role} pid ${exit.pid} exited (code ${exit.code}, signal ${exit.signal}): ${lastError(exit.outputTail)}`);
    }
    for (const outcome of evidence.hostileOutcomes) if (!outcome.ok) add('hostile inputs mishandled', `${evidence.round}:${outcome.name}`, `${outcome.name}: ${outcome.detail}`);
    for (const mismatch of evidence.replayMismatches) add('jobs duplicated by a replay', mismatch, mismatch);

    const settled = await this.waitForSettling();
    for (const job of settled.unfinishedJobs) add('jobs unfinished', job.id, `${job.id} still ${job.status} ${this.settleMs / 1000} s after the round`);
    for (const hold of settled.strayHolds) {
      const logged = hold.request_id ? await this.cluster.database.db('request_log').where({ request_id: hold.request_id }).first('status') : undefined;
      const answer = logged ? `, answered ${logged.status}` : ', no request log row';
      add('holds leaked', hold.id, `hold ${hold.id} (${hold.model ?? 'no model'}, request ${hold.request_id}${answer}) active ${Math.round((Date.now() - Number(hold.created_at)) / 1000)} s${await this.holdOwner(hold.instance_id)}`);
    }
    for (const charge of settled.chargesWithoutUsage) {
      add('charges missing usage records', String(charge.id), `charge ${charge.id} of request ${charge.request_id} (${charge.model}) has no usage record${this.nearKill(Number(charge.created_at))}`);
    }

    for (const problem of await this.jobMoneyProblems()) add(problem.kind, problem.id, problem.detail);
    const upstreamExtra = await this.upstreamDuplicates();
    // Counted by number: which of the upstream jobs is the extra one cannot be told apart.
    for (let extra = 0; extra < upstreamExtra.extra; extra++) add('jobs submitted upstream twice', `extra-${extra}`, upstreamExtra.detail);
    for (const problem of await this.ledgerProblems()) add('ledger mismatches', problem.id, problem.detail);
    this.payments.push(...evidence.payments);
    for (const problem of await this.settledPaymentProblems()) add(problem.kind, problem.id, problem.detail);
    for (const problem of await this.healthProblems()) add('processes unhealthy', `${evidence.round}:${problem}`, problem);
    return findings;
  }

  /**
   * Polls until nothing is left settling but what an earlier round already counted as lost. The
   * deadline is the chaos run's settle window (settleMs, docs/development.md): what has not
   * settled within it is the run's finding, counted as lost, not a test that hangs.
   */
  private async waitForSettling() {
    const until = Date.now() + this.settleMs;
    const isNew = (kind: LossKind, id: string | number) => !this.counted.get(kind)!.has(String(id));
    for (;;) {
      const snapshot = await this.unsettled();
      const quiet =
        !snapshot.unfinishedJobs.some((job) => isNew('jobs unfinished', job.id)) &&
        !snapshot.strayHolds.some((hold) => isNew('holds leaked', hold.id)) &&
        !snapshot.chargesWithoutUsage.some((charge) => isNew('charges missing usage records', charge.id));
      if (quiet || Date.now() > until) return snapshot;
      await sleep(250);
    }
  }

  /** What may still be settling: jobs not ended, holds of no running job, chat charges without usage. */
  private async unsettled() {
    const { db } = this.cluster.database;
    const unfinishedJobs: { id: string; status: string; hold_id: string | null }[] = await db('jobs').whereNotIn('status', terminalJobStatuses).select('id', 'status', 'hold_id');
    const runningHolds = unfinishedJobs.map((job) => job.hold_id).filter((id): id is string => id !== null);
    const strayHolds: { id: string; model: string | null; request_id: string | null; created_at: string | number; instance_id: string | null }[] = await db('holds')
      .where({ status: 'active' })
      .whereNotIn('id', runningHolds)
      .select('id', 'model', 'request_id', 'created_at', 'instance_id');
    const chargesWithoutUsage: { id: string | number; request_id: string; model: string; created_at: string | number }[] = await db('ledger_transactions as charge')
      .where('charge.kind', 'charge')
      .whereIn('charge.model', chatModels)
      .whereNotExists(db('usage_records as usage').whereRaw('usage.request_id = charge.request_id').select(db.raw('1')))
      .select('charge.id', 'charge.request_id', 'charge.model', 'charge.created_at');
    return { unfinishedJobs, strayHolds, chargesWithoutUsage };
  }

  /** ", placed by <role> pid P (heartbeat N s ago | gone)": whose sweep should have released it. */
  private async holdOwner(instanceId: string | null): Promise<string> {
    if (!instanceId) return ', no owner instance';
    const instance = await this.cluster.database.db('instances').where({ id: instanceId }).first();
    if (!instance) return `, owner ${instanceId} no longer registered`;
    const role = (['victim', 'steady', 'worker'] as const).find((candidate) => this.cluster.process(candidate).pid === Number(instance.pid));
    const killed = this.cluster.kills.find((kill) => kill.pid === Number(instance.pid));
    const who = role ? `${role} (alive)` : killed ? `${killed.role} (SIGKILLed)` : 'an unknown process';
    return `, placed by ${who} pid ${instance.pid}, heartbeat ${Math.round((Date.now() - Number(instance.heartbeat_at)) / 1000)} s ago`;
  }

  /** ", written N ms before the SIGKILL of <role> pid P" when a kill followed within 2 s: what the loss died with. */
  private nearKill(at: number): string {
    const kill = this.cluster.kills.find((candidate) => candidate.at >= at && candidate.at - at <= 2000);
    return kill ? `, written ${kill.at - at} ms before the SIGKILL of ${kill.role} pid ${kill.pid}` : '';
  }

  /** Completed: its hold settled by exactly one charge of the job's price. Failed or cancelled: released, nothing charged. */
  private async jobMoneyProblems(): Promise<{ kind: LossKind; id: string; detail: string }[]> {
    const { db } = this.cluster.database;
    const jobs: { id: string; status: string; hold_id: string | null; charged_units: string | number; hold_status: string | null }[] = await db('jobs as job')
      .leftJoin('holds as hold', 'hold.id', 'job.hold_id')
      .whereIn('job.status', terminalJobStatuses)
      .select('job.id', 'job.status', 'job.hold_id', 'job.charged_units', 'hold.status as hold_status');
    const charges: { hold_id: string; count: string | number; total: string | number }[] = await db('ledger_transactions')
      .where({ kind: 'charge' })
      .whereNotNull('hold_id')
      .groupBy('hold_id')
      .select('hold_id', db.raw('count(*) as count'), db.raw('sum(amount_units) as total'));
    const byHold = new Map(charges.map((row) => [row.hold_id, { count: Number(row.count), total: -BigInt(row.total) }]));
    const problems: { kind: LossKind; id: string; detail: string }[] = [];
    for (const job of jobs) {
      const charge = job.hold_id ? byHold.get(job.hold_id) : undefined;
      const count = charge?.count ?? 0;
      if (count > 1) {
        problems.push({ kind: 'jobs double-charged', id: job.id, detail: `${job.id} (${job.status}) charged ${count} times` });
        continue;
      }
      const wrong =
        job.status === 'completed'
          ? count !== 1 || job.hold_status !== 'settled' || charge!.total !== BigInt(job.charged_units)
          : count !== 0 || (job.hold_id !== null && job.hold_status !== 'released');
      if (wrong) problems.push({ kind: 'jobs with wrong money', id: job.id, detail: `${job.id} ${job.status}: hold ${job.hold_status}, ${count} charge(s)${charge ? ` of ${charge.total}` : ''}, job says ${job.charged_units}` });
    }
    return problems;
  }

  /**
   * Paid upstream once: the simulator counts the jobs it created (what a vendor bills); each
   * gateway job that reached it recorded one upstream id, except a job whose submit outcome was
   * unknown at a vendor without idempotency keys (music): it fails `submit_uncertain`, released,
   * having made at most one upstream job. More upstream jobs than both is a job sent twice (a
   * crash mid-submit, a submit outliving its lease).
   */
  private async upstreamDuplicates(): Promise<{ extra: number; detail: string }> {
    const response = await fetch(`${this.cluster.simulator.url}/__sim/stats`, { signal: AbortSignal.timeout(5000) });
    const stats = (await response.json()) as { jobs: Record<string, { created: number }> };
    const created = Object.values(stats.jobs).reduce((sum, counts) => sum + counts.created, 0);
    const { db } = this.cluster.database;
    const recorded = Number((await db('jobs').whereNotNull('upstream_id').countDistinct({ n: 'upstream_id' }).first())?.n ?? 0);
    this.uncertainSubmits = Number((await db('jobs').whereNull('upstream_id').where({ error_code: 'submit_uncertain' }).count({ n: '*' }).first())?.n ?? 0);
    return {
      extra: Math.max(0, created - recorded - this.uncertainSubmits),
      detail: `the upstream created ${created} jobs for ${recorded} gateway jobs with an upstream id and ${this.uncertainSubmits} failed submit_uncertain`,
    };
  }

  /**
   * Payments paid at the provider are credited by a notification or, when every notification
   * was lost (a killed serve, `notify=none`), by the sweeper after payments.sweep_after: polled
   * until each is, within the settle window; then every payment is checked against the ledger.
   */
  private async settledPaymentProblems() {
    const until = Date.now() + this.settleMs;
    for (;;) {
      const { problems, pendingPaid } = await paymentProblems(this.cluster.database.db, this.payments);
      if (pendingPaid === 0 || Date.now() > until) {
        if (pendingPaid === 0) return problems;
        const rows: { id: string; status: string }[] = await this.cluster.database.db('payments').whereIn('id', this.payments.map((payment) => payment.id)).select('id', 'status');
        const stuck = rows.filter((row) => row.status === 'pending' && this.payments.some((payment) => payment.id === row.id && payment.outcome.startsWith('paid') && payment.settledAtProvider));
        return [...problems, ...stuck.map((row) => ({ kind: 'payments paid, not credited' as const, id: row.id, detail: `${row.id} was paid at the provider but is still pending ${this.settleMs / 1000} s after the round` }))];
      }
      await sleep(250);
    }
  }

  /** balance == sum(ledger), held == sum(active holds), 0 <= held <= balance, per account. */
  private async ledgerProblems(): Promise<{ id: string; detail: string }[]> {
    const { db } = this.cluster.database;
    const problems: { id: string; detail: string }[] = [];
    const accounts: { id: string; name: string; balance_units: string | number; held_units: string | number }[] = await db('accounts').select('id', 'name', 'balance_units', 'held_units');
    for (const account of accounts) {
      const ledger = await db('ledger_transactions').where({ account_id: account.id }).sum({ total: 'amount_units' }).first();
      const held = await db('holds').where({ account_id: account.id, status: 'active' }).sum({ total: 'amount_units' }).first();
      const balance = BigInt(account.balance_units);
      const heldUnits = BigInt(account.held_units);
      const ledgerSum = BigInt(ledger?.total ?? 0);
      const activeHolds = BigInt(held?.total ?? 0);
      if (balance !== ledgerSum) problems.push({ id: `${account.id}:balance`, detail: `${account.name}: balance ${balance} but the ledger sums to ${ledgerSum}` });
      if (heldUnits !== activeHolds) problems.push({ id: `${account.id}:held`, detail: `${account.name}: held ${heldUnits} but its active holds sum to ${activeHolds}` });
      if (balance < 0n || heldUnits > balance) problems.push({ id: `${account.id}:negative`, detail: `${account.name}: balance ${balance}, held ${heldUnits}` });
    }
    return problems;
  }

  /** Each serve process answers /healthz and, with everything restored, /readyz ready, not degraded (polled: readiness may take a moment after a cut). */
  private async healthProblems(): Promise<string[]> {
    const problems: string[] = [];
    for (const role of ['victim', 'steady'] as const) {
      const url = this.cluster.process(role).url;
      for (const path of ['/healthz', '/readyz']) {
        const until = Date.now() + this.settleMs;
        let last = '';
        for (;;) {
          // A 200 "degraded" /readyz (Redis not back under cache.on_unavailable=open) is not ready.
          const status = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(5000) }).then(
            async (response) => {
              const body = (await response.json().catch(() => undefined)) as { status?: string } | undefined;
              return response.status === 200 && body?.status === 'degraded' ? '200 degraded' : response.status;
            },
            (error: Error) => error.message,
          );
          if (status === 200) break;
          last = String(status);
          if (Date.now() > until) {
            problems.push(`${role} ${path}: ${last}`);
            break;
          }
          await sleep(250);
        }
      }
    }
    return problems;
  }
}
