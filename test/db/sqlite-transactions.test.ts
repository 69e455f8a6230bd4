// SQLite transactions begin IMMEDIATE (src/db/sqlite-client.ts). The regression: CI saw
// `gateway admin tokens revoke` fail with SQLITE_BUSY beside a running gateway. Its transaction
// read the token, the gateway committed a write, and the transaction's first write could not
// upgrade its stale snapshot: SQLite answers that at once, without waiting busy_timeout. Two
// connections to one file stand for the two processes.
import test from 'ava';
import { AdminTokens } from '../../src/cabinet/admin-tokens.js';
import { connectDatabase } from '../../src/db/connect.js';
import { createTestDatabase } from '../helpers/backends.js';

test('a SQLite transaction that reads then writes holds the write lock from its start, so another process writing between cannot fail it', async (t) => {
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const cli = database.db;
  const gateway = connectDatabase(database.database);
  t.teardown(() => gateway.destroy());
  // The other process does not wait for the lock: if the transaction did not hold it, its write
  // would land between the read and the write below.
  await gateway.raw('PRAGMA busy_timeout = 0');
  const tokens = new AdminTokens(cli, () => 1_000);
  const { adminToken } = await tokens.create({ name: 'ci', actor: 'test' });

  let otherWrite: unknown = 'not tried';
  await cli.transaction(async (trx) => {
    const row = await trx('admin_tokens').where({ id: adminToken.id }).first();
    t.is(row.revoked_at, null);
    otherWrite = await gateway('admin_tokens').where({ id: adminToken.id }).update({ last_used_at: 1 }).then(
      () => 'written',
      (error: { code?: string }) => error.code,
    );
    await trx('admin_tokens').where({ id: adminToken.id }).update({ revoked_at: 2 });
  });
  t.is(otherWrite, 'SQLITE_BUSY', 'the other process found the database locked by the open transaction');
  t.like(await cli('admin_tokens').where({ id: adminToken.id }).first(), { revoked_at: 2, last_used_at: null });

  // The revoke of the CLI, with the other process writing in the same way while it runs: it
  // waits for the lock (busy_timeout) instead of failing.
  await gateway.raw('PRAGMA busy_timeout = 10000');
  const second = await tokens.create({ name: 'second', actor: 'test' });
  const writes = Array.from({ length: 20 }, (_, index) => gateway('admin_tokens').where({ id: adminToken.id }).update({ last_used_at: index + 10 }));
  const revoked = await tokens.revoke(second.adminToken.id, 'test');
  await Promise.all(writes);
  t.truthy(revoked.revokedAt);
  t.is(Number((await cli('admin_tokens').where({ id: adminToken.id }).first()).last_used_at), 29);
});
