// An account's ledger and the refund of a charge through the admin API (issue 31), on both
// databases, with an admin token: the ledger newest first, paged by its cursor, exact amounts,
// each charge with the refund that gave it back; a refund by the charge's ledger row or by its
// request id, answered as `gateway balance refund --json` prints it, audited with the token;
// refused the second time (409), for another account's charge or a row that is no charge (404),
// for a body naming neither or both (422); eight concurrent refunds of one charge credit it once;
// balance == sum(ledger) after all of it.
import { formatRub } from '../../src/util/money.js';
import { readAudit } from '../../src/audit/audit-log.js';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { createAdminToken } from '../helpers/cabinet.js';
import { testClock } from '../helpers/clock.js';
import { startGateway } from '../helpers/gateway.js';
import { api } from '../helpers/jobs.js';
import { admin, expectAnswer, expectRefusal } from './admin-helpers.js';

const start = Date.UTC(2026, 10, 28, 7, 0, 0);
const startSeconds = Math.floor(start / 1000);

interface LedgerRow {
  id: string | number;
  kind: string;
  amount_units: string | number;
  balance_after_units: string | number;
  description: string | null;
  request_id: string | null;
}

testOnBackends('the ledger of an account, paged newest first with each charge\'s refund; a charge refunded once by its row or its request id (a second, concurrent or foreign refund refused, nothing written); audited with the token', async (t, database) => {
  const clock = testClock({ start });
  const gateway = await startGateway(t, database, { now: clock.now });
  const { id: tokenId, token } = await createAdminToken(gateway.services);
  const call = (method: string, path: string, body?: unknown) => admin(gateway.url, { token }, method, path, body);
  const client = await gateway.newClient({ balanceUnits: 1_000_000n });
  const stranger = await gateway.newClient({ balanceUnits: 10_000n });
  const ledgerPath = `/admin/v1/accounts/${client.accountId}/transactions`;
  const refundPath = `/admin/v1/accounts/${client.accountId}/refund`;

  // Three chats, three charges.
  const requestIds: string[] = [];
  for (const content of ['one', 'two', 'three']) {
    const chat = await api(gateway, client.key, 'POST', '/v1/chat/completions', { model: 'sim/chat', messages: [{ role: 'user', content }] });
    t.is(chat.status, 200, JSON.stringify(chat.body));
    requestIds.push(chat.headers.get('x-request-id')!);
  }
  const rows = async (): Promise<LedgerRow[]> => database.db('ledger_transactions').where({ account_id: client.accountId }).orderBy('id', 'desc');
  const [third, second, first, topup] = await rows();
  t.deepEqual([third, second, first, topup].map((row) => [row!.kind, row!.request_id]), [['charge', requestIds[2]], ['charge', requestIds[1]], ['charge', requestIds[0]], ['topup', null]]);
  /** A row as the API shows it: the ledger's own figures, exactly. */
  const shown = (row: LedgerRow, refundedBy: string | null = null) => ({
    id: `txn_${row.id}`,
    object: 'balance.transaction',
    created_at: startSeconds,
    kind: row.kind,
    amount_rub: formatRub(BigInt(row.amount_units)),
    balance_after_rub: formatRub(BigInt(row.balance_after_units)),
    model: row.kind === 'charge' ? 'sim/chat' : null,
    description: row.description,
    request_id: row.request_id,
    refunded_by: refundedBy,
  });
  t.is(shown(topup!).amount_rub, '100.0000');

  // Two pages of two.
  const page1 = expectAnswer(t, await call('GET', `${ledgerPath}?limit=2`), 200, 'GET', '/admin/v1/accounts/:id/transactions');
  t.deepEqual(page1, { object: 'list', data: [shown(third!), shown(second!)], has_more: true, next_cursor: page1.next_cursor });
  t.is(typeof page1.next_cursor, 'string');
  const page2 = expectAnswer(t, await call('GET', `${ledgerPath}?limit=2&cursor=${page1.next_cursor}`), 200, 'GET', '/admin/v1/accounts/:id/transactions');
  t.deepEqual(page2, { object: 'list', data: [shown(first!), shown(topup!)], has_more: false, next_cursor: null });
  // The same rows as `gateway balance history` and GET /v1/history give (without refunded_by).
  const history = await api(gateway, client.key, 'GET', '/v1/history?limit=4');
  t.deepEqual(history.body.data, [...page1.data, ...page2.data].map(({ refunded_by: _refundedBy, ...item }) => item));
  expectRefusal(t, await call('GET', `${ledgerPath}?cursor=bm90LW1pbmU`), 422, 'validation_error', 'cursor');
  expectRefusal(t, await call('GET', `${ledgerPath}?limit=201`), 422, 'validation_error', 'limit');
  expectRefusal(t, await call('GET', '/admin/v1/accounts/acc_missing/transactions'), 404, 'not_found');

  // The second charge by its ledger row: given back whole.
  clock.advance(60_000);
  const secondUnits = -BigInt(second!.amount_units);
  const balanceBefore = BigInt(third!.balance_after_units);
  const refunded = expectAnswer(t, await call('POST', refundPath, { transaction_id: `txn_${second!.id}`, reason: 'empty answer' }), 200, 'POST', '/admin/v1/accounts/:id/refund');
  const [refundRow] = await rows();
  t.deepEqual(refunded, {
    transaction_id: `txn_${refundRow!.id}`,
    account_id: client.accountId,
    kind: 'refund',
    amount_rub: formatRub(secondUnits),
    balance_rub: formatRub(balanceBefore + secondUnits),
    request_id: requestIds[1],
    job_id: null,
    charge_transaction_id: `txn_${second!.id}`,
    reason: 'empty answer',
    audit_id: refunded.audit_id,
  });
  t.like(refundRow, { kind: 'refund', request_id: requestIds[1], description: `refund of ${requestIds[1]}: empty answer` });

  // Once: again by the row, by the request id, nothing written.
  const count = async () => (await rows()).length;
  const before = await count();
  const again = await call('POST', refundPath, { transaction_id: `txn_${second!.id}` });
  expectRefusal(t, again, 409, 'already_refunded', null);
  t.is(again.body.error.message, `the charge of "txn_${second!.id}" was already refunded; nothing was written`);
  expectRefusal(t, await call('POST', refundPath, { request_id: requestIds[1] }), 409, 'already_refunded', null);
  // Another account's charge is not found in this one, and the other way round.
  const foreign = await call('POST', `/admin/v1/accounts/${stranger.accountId}/refund`, { request_id: requestIds[0] });
  expectRefusal(t, foreign, 404, 'not_found');
  t.is(foreign.body.error.message, `no charge "${requestIds[0]}" in account ${stranger.accountId}`);
  expectRefusal(t, await call('POST', `/admin/v1/accounts/${stranger.accountId}/refund`, { transaction_id: `txn_${first!.id}` }), 404, 'not_found');
  // Rows that are no charge, and ids that are no row.
  const notCharge = await call('POST', refundPath, { transaction_id: `txn_${topup!.id}` });
  expectRefusal(t, notCharge, 404, 'not_found');
  t.is(notCharge.body.error.message, `ledger transaction "txn_${topup!.id}" is a topup, not a charge: only charges are refunded`);
  expectRefusal(t, await call('POST', refundPath, { transaction_id: `txn_${refundRow!.id}` }), 404, 'not_found');
  expectRefusal(t, await call('POST', refundPath, { transaction_id: 'txn_999999999999999999' }), 404, 'not_found');
  expectRefusal(t, await call('POST', refundPath, { request_id: 'req_unknown' }), 404, 'not_found');
  expectRefusal(t, await call('POST', '/admin/v1/accounts/acc_missing/refund', { transaction_id: `txn_${first!.id}` }), 404, 'not_found');
  // A body naming neither, both, or a malformed id: 422 on the field.
  expectRefusal(t, await call('POST', refundPath, {}), 422, 'validation_error', 'transaction_id');
  expectRefusal(t, await call('POST', refundPath, { transaction_id: `txn_${first!.id}`, request_id: requestIds[0] }), 422, 'validation_error', 'transaction_id');
  expectRefusal(t, await call('POST', refundPath, { transaction_id: String(first!.id) }), 422, 'validation_error', 'transaction_id');
  expectRefusal(t, await call('POST', refundPath, { request_id: requestIds[0], reason: 'x'.repeat(501) }), 422, 'validation_error', 'reason');
  t.is(await count(), before, 'nothing written by a refused refund');

  // Eight at once on the third charge, by its row and by its request id: one refund.
  const racing = await Promise.all(Array.from({ length: 8 }, (_, index) => call('POST', refundPath, index % 2 === 0 ? { transaction_id: `txn_${third!.id}` } : { request_id: requestIds[2] })));
  t.deepEqual(racing.map((answer) => answer.status).sort(), [200, 409, 409, 409, 409, 409, 409, 409], JSON.stringify(racing.map((answer) => answer.body)));
  for (const answer of racing.filter((candidate) => candidate.status === 409)) t.is(answer.body.error.code, 'already_refunded');
  t.is(await count(), before + 1);
  const thirdUnits = -BigInt(third!.amount_units);
  t.is((await gateway.services.ledger.balance(client.accountId)).balanceUnits, balanceBefore + secondUnits + thirdUnits);
  t.is((await gateway.services.ledger.balance(client.accountId)).balanceUnits, 1_000_000n + BigInt(first!.amount_units), 'only the first charge stays taken');

  // The ledger now: the two refunds on top, each charge naming its refund.
  const [thirdRefund, secondRefund] = await rows();
  const ledger = expectAnswer(t, await call('GET', ledgerPath), 200, 'GET', '/admin/v1/accounts/:id/transactions');
  t.deepEqual(ledger.data, [
    { ...shown(thirdRefund!), created_at: startSeconds + 60, model: 'sim/chat' },
    { ...shown(secondRefund!), created_at: startSeconds + 60, model: 'sim/chat' },
    shown(third!, `txn_${thirdRefund!.id}`),
    shown(second!, `txn_${secondRefund!.id}`),
    shown(first!),
    shown(topup!),
  ]);

  // Audited: two refunds, the token their actor.
  const audit = await readAudit(database.db, { action: 'balance.refund', limit: 10 });
  t.deepEqual(
    audit.map((entry) => [entry.actor, entry.target, entry.accountId, entry.details.amount_rub, entry.details.reason, entry.details.charge_transaction_id]),
    [
      [`admin-token:${tokenId}`, requestIds[2], client.accountId, formatRub(thirdUnits), null, `txn_${third!.id}`],
      [`admin-token:${tokenId}`, requestIds[1], client.accountId, formatRub(secondUnits), 'empty answer', `txn_${second!.id}`],
    ],
  );
  t.is(refunded.audit_id, audit[1]!.id);
  await assertLedgerInvariants(t, database.db);
});
