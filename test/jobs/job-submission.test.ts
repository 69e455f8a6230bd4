// The job store's side of exactly-once submission (issue 13 item 4), on an injected clock:
// the `submitting` record written before a submit, and every write of a runner that lost its
// lease refused (compare-and-set on the lease owner), so it never lands over the new owner's.
import { Accounts } from '../../src/accounts/accounts.js';
import { Ledger } from '../../src/billing/ledger.js';
import { JobStore } from '../../src/jobs/job-store.js';
import { submitKeyOf } from '../../src/pipeline/job-submit.js';
import { Generations } from '../../src/storage/generations.js';
import { holdForJob } from '../../src/billing/charge-envelope.js';
import { PendingSettles } from '../../src/billing/pending-settles.js';
import { completeJob, failJob, type JobEndServices } from '../../src/pipeline/job-end.js';
import { pino } from 'pino';
import { ApiKeys } from '../../src/auth/api-keys.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';

const leaseMs = 10_000;

/** What ends a job (src/pipeline/job-end.ts) over this store and ledger. */
const jobEnds = (jobs: JobStore, ledger: Ledger, now: () => number): JobEndServices => ({ jobs, settles: new PendingSettles(ledger, pino({ level: 'silent' }), { cap: 0 }), config: { storage: { tempTtlMs: 3_600_000 } }, now });


testOnBackends('a runner that lost its lease writes nothing: not the submitting record, not the upstream id, not the end', async (t, database) => {
  let now = 1_800_000_000_000;
  const clock = () => now;
  const ledger = new Ledger(database.db, clock);
  const store = new JobStore({ db: database.db, generations: new Generations(database.db, clock), deadlineMs: 600_000, leaseMs, now: clock });
  const ends = jobEnds(store, ledger, clock);
  const account = await new Accounts(database.db, clock).create('lease-owner');
  await ledger.credit(account.id, 1_000_000n, 'topup');
  const { apiKey } = await new ApiKeys(database.db, 'gw', clock).create({ accountId: account.id });
  const { job } = await store.create({
    kind: 'video',
    accountId: account.id,
    keyId: 'key_test',
    model: 'sim/video',
    request: { prompt: 'p', seconds: 4, size: '720x1280' },
    endpoint: 'videos',
    holdUnits: 5000n,
    requestId: 'req_1',
    prompt: 'p',
    description: 'video',
  }, (trx) => holdForJob(ends.settles, trx, { key: apiKey, model: 'sim/video', requestId: 'req_1', description: 'video' }, 5000n, 600_000, now));
  t.is(job.submitState, null);

  const [claimedByA] = await store.claim('runner-a', 1);
  t.truthy(claimedByA);
  const key = submitKeyOf(claimedByA!);
  t.is(key, `gw-${job.id}`, 'the key is derived from the job id alone');
  t.true(await store.markSubmitting(claimedByA!, 'runner-a', { provider: 'sim', upstreamModel: 'video', key }));
  const recorded = (await store.get(null, job.id))!;
  t.like(recorded, { submitState: 'submitting', submitKey: key, provider: 'sim', upstreamModel: 'video', submits: 1, upstreamId: null });
  t.is(submitKeyOf(recorded), key, 'a later runner sends the recorded key');

  // A's lease runs out (it stalled without its heartbeat); B claims the job, still `submitting`.
  now += leaseMs + 1;
  const [claimedByB] = await store.claim('runner-b', 1);
  t.is(claimedByB?.id, job.id);
  t.is(claimedByB?.submitState, 'submitting');

  // Every write of A is refused now.
  t.false(await store.renewLease(claimedByA!, 'runner-a'), 'A learns at its next heartbeat that the job is gone');
  t.false(await store.markSubmitting(claimedByA!, 'runner-a', { provider: 'sim', upstreamModel: 'video', key }));
  t.false(await store.reschedule(claimedByA!, 'runner-a', { upstreamId: 'video_from_a', provider: 'sim', upstreamModel: 'video', nextRunAt: now }));
  t.false(await completeJob(ends, claimedByA!, 'runner-a', { actualUnits: 5000n, result: { fileIds: [] } }));
  t.false(await failJob(ends, claimedByA!, 'runner-a', { code: 'x', message: 'x' }));

  // B's are stored.
  t.true(await store.renewLease(claimedByB!, 'runner-b'));
  t.true(await store.reschedule(claimedByB!, 'runner-b', { upstreamId: 'video_from_b', provider: 'sim', upstreamModel: 'video', nextRunAt: now + 250 }));
  const after = (await store.get(null, job.id))!;
  t.like(after, { upstreamId: 'video_from_b', submitState: 'submitted', status: 'queued', leaseOwner: null });
  // And once the upstream id is stored, no submitting record can be written any more.
  now += 1000;
  const [again] = await store.claim('runner-c', 1);
  t.false(await store.markSubmitting(again!, 'runner-c', { provider: 'sim', upstreamModel: 'video', key }));
  await failJob(ends, again!, 'runner-c', { code: 'done', message: 'test over' });
  await assertLedgerInvariants(t, database.db);
});

testOnBackends('a submit refused outright clears the submitting record: the next attempt starts afresh', async (t, database) => {
  let now = 1_800_000_000_000;
  const clock = () => now;
  const ledger = new Ledger(database.db, clock);
  const store = new JobStore({ db: database.db, generations: new Generations(database.db, clock), deadlineMs: 600_000, leaseMs, now: clock });
  const ends = jobEnds(store, ledger, clock);
  const account = await new Accounts(database.db, clock).create('refused');
  const { job } = await store.create({ kind: 'music', accountId: account.id, keyId: 'key_test', model: 'sim/song', request: { mode: 'simple', prompt: 'p' }, endpoint: 'audio/music', holdUnits: 0n, requestId: 'req_2', prompt: 'p', description: 'music' }, async () => undefined);
  const [claimed] = await store.claim('runner-a', 1);
  t.true(await store.markSubmitting(claimed!, 'runner-a', { provider: 'suno', upstreamModel: 'V4_5', key: submitKeyOf(claimed!) }));
  t.true(await store.reschedule(claimed!, 'runner-a', { nextRunAt: now + 1000, polled: true, submitState: null }));
  t.like((await store.get(null, job.id))!, { submitState: null, submits: 1, polls: 1 });
  await t.throwsAsync(store.reschedule(claimed!, 'runner-a', { nextRunAt: now + 0.5 }), { message: /whole milliseconds/ });
});
