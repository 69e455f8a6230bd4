// Which database errors mean "unreachable now" (503 + Retry-After, retried writes) and which
// mean the statement itself is wrong (a 500, not retried as an outage).
import test from 'ava';
import { isDatabaseUnavailable } from '../../src/errors/database-unavailable.js';
import { toGatewayError } from '../../src/errors/to-gateway-error.js';

const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });

test('connection failures, server shutdowns, pool timeouts and SQLite locks are an unreachable database', (t) => {
  for (const code of ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03', '53300', '08006', '08001', 'SQLITE_BUSY', 'SQLITE_CANTOPEN', 'SQLITE_IOERR']) {
    t.true(isDatabaseUnavailable(withCode(code)), code);
  }
  t.true(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')));
  t.true(isDatabaseUnavailable(Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' })));
  t.true(isDatabaseUnavailable(new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'connect failed')));
  t.true(isDatabaseUnavailable(new Error('wrapped', { cause: withCode('ECONNRESET') })));
});

test('a statement the database refuses is not an outage', (t) => {
  for (const code of ['23505', '23514', '42P01', '42601', '22P02', 'SQLITE_CONSTRAINT', 'SQLITE_ERROR']) t.false(isDatabaseUnavailable(withCode(code)), code);
  t.false(isDatabaseUnavailable(new Error('insufficient_balance')));
  t.false(isDatabaseUnavailable(undefined));
  t.false(isDatabaseUnavailable('ECONNREFUSED'));
});

test('the error middleware answers an unreachable database with 503, Retry-After and database_unavailable', (t) => {
  const error = toGatewayError(withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), 'http')!;
  t.is(error.status, 503);
  t.is(error.code, 'database_unavailable');
  t.is(error.retryable, true);
  t.like(error.options, { headers: { 'retry-after': '2' } });
  t.is(toGatewayError(withCode('42601', 'syntax error'), 'http'), undefined, 'anything else stays a logged 500');
});
