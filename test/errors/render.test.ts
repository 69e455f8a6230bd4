// The catalog rendered by each dialect's error encoder: exact bodies, as clients read them
// (DESIGN.md §2.3). The e2e tests check the same bodies through real requests; these pin the
// encoders and the catalog's types without a server.
import test from 'ava';
import { encodeAnthropicError } from '../../src/dialects/messages/error.js';
import { encodeOpenaiError } from '../../src/dialects/shared/openai-error.js';
import { errorCatalog } from '../../src/errors/catalog.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { databaseUnavailable, forbiddenScope, validationFailed } from '../../src/errors/refusals.js';
import { toGatewayError } from '../../src/errors/to-gateway-error.js';
import { InsufficientBalanceError } from '../../src/billing/errors.js';
import { ContextWindowExceededError } from '../../src/pipeline/context-window.js';
import { InvalidCursorError } from '../../src/util/invalid-cursor-error.js';

const requestId = 'req_0123456789abcdef';

test('402 insufficient_balance: OpenAI type insufficient_balance, Anthropic billing_error, no x-should-retry', (t) => {
  const error = toGatewayError(new InsufficientBalanceError(15_000n, 2_500n), 'http')!;
  const message = 'Insufficient balance: this request needs 1.5000 RUB and 0.2500 RUB is available. Top up the account.';
  t.is(error.status, 402);
  t.is(error.retryable, undefined);
  t.deepEqual(encodeOpenaiError(error, requestId), { error: { message, type: 'insufficient_balance', param: null, code: 'insufficient_balance' } });
  t.deepEqual(encodeAnthropicError(error, requestId), { type: 'error', error: { type: 'billing_error', message }, request_id: requestId });
});

test('403 insufficient_scope names the scope; both dialects say permission_error', (t) => {
  const error = forbiddenScope('search');
  const message = 'This API key lacks the "search" scope needed here. Add the "search" scope to this key on the API keys page of the cabinet, or use a key that has it.';
  t.is(error.status, 403);
  t.deepEqual(encodeOpenaiError(error, requestId), { error: { message, type: 'permission_error', param: null, code: 'insufficient_scope' } });
  t.deepEqual(encodeAnthropicError(error, requestId), { type: 'error', error: { type: 'permission_error', message }, request_id: requestId });
});

test('404 not_found is not_found_error for Anthropic', (t) => {
  const error = new GatewayError('not_found', "No file found with id '7'.");
  t.deepEqual(encodeOpenaiError(error, requestId), { error: { message: "No file found with id '7'.", type: 'invalid_request_error', param: null, code: 'not_found' } });
  t.deepEqual(encodeAnthropicError(error, requestId), { type: 'error', error: { type: 'not_found_error', message: "No file found with id '7'." }, request_id: requestId });
});

test('400 context_length_exceeded: each vendor\'s wording, param on OpenAI only', (t) => {
  const error = toGatewayError(new ContextWindowExceededError(1000, 900, 200, 'messages'), 'http')!;
  t.deepEqual(encodeOpenaiError(error, requestId), {
    error: {
      message: "This model's maximum context length is 1000 tokens. However, you requested 1100 tokens (900 in the messages, 200 in the completion). Please reduce the length of the messages or completion.",
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  });
  t.deepEqual(encodeAnthropicError(error, requestId), {
    type: 'error',
    error: { type: 'invalid_request_error', message: 'input length and `max_tokens` exceed context limit: 900 + 200 > 1000, decrease input length or `max_tokens` and try again' },
    request_id: requestId,
  });
});

test('422 validation_error carries detail in both dialects; an invalid cursor is one on its parameter', (t) => {
  const error = toGatewayError(new InvalidCursorError('the cursor is not one this endpoint returned', 'bogus').carriedIn('after'), 'http')!;
  const detail = [{ loc: ['query', 'after'], msg: 'Value error, the cursor is not one this endpoint returned', type: 'value_error', input: 'bogus' }];
  t.is(error.status, 422);
  t.deepEqual(encodeOpenaiError(error, requestId), {
    error: { message: 'query.after: Value error, the cursor is not one this endpoint returned', type: 'invalid_request_error', param: 'after', code: 'validation_error' },
    detail,
  });
  t.deepEqual(encodeAnthropicError(error, requestId), {
    type: 'error',
    error: { type: 'invalid_request_error', message: 'query.after: Value error, the cursor is not one this endpoint returned' },
    request_id: requestId,
    detail,
  });
  t.deepEqual(encodeOpenaiError(validationFailed([{ loc: ['body'], msg: 'Field required', type: 'missing' }]), requestId), {
    error: { message: 'body: Field required', type: 'invalid_request_error', param: null, code: 'validation_error' },
    detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }],
  });
});

test('5xx: 500 has a null body code, 503 and 504 say whether to retry', (t) => {
  const internal = new GatewayError('internal_error', `Internal error; quote request id ${requestId} to the operator.`);
  t.is(internal.status, 500);
  t.is(internal.retryable, false);
  t.deepEqual(encodeOpenaiError(internal, requestId), { error: { message: internal.message, type: 'server_error', param: null, code: null } });
  t.deepEqual(encodeAnthropicError(internal, requestId), { type: 'error', error: { type: 'api_error', message: internal.message }, request_id: requestId });

  const database = databaseUnavailable();
  t.is(database.status, 503);
  t.is(database.retryable, true);
  t.deepEqual(database.options.headers, { 'retry-after': '2' });
  t.deepEqual(encodeOpenaiError(database, requestId), {
    error: { message: 'The database is unreachable at the moment; retry in a few seconds.', type: 'server_error', param: null, code: 'database_unavailable' },
  });

  const timeout = new GatewayError('upstream_timeout', 'The upstream timed out: 30 s');
  t.is(timeout.status, 504);
  t.deepEqual(encodeAnthropicError(timeout, requestId), { type: 'error', error: { type: 'timeout_error', message: 'The upstream timed out: 30 s' }, request_id: requestId });
});

test('upstream_error retries as the upstream said; invalid_request keeps the parser\'s status', (t) => {
  t.is(new GatewayError('upstream_error', 'x', { retryable: false }).retryable, false);
  t.is(new GatewayError('upstream_error', 'x', { retryable: true }).retryable, true);
  t.is(new GatewayError('upstream_error', 'x').retryable, undefined);
  const wrongMethod = toGatewayError(Object.assign(new Error('Method Not Allowed'), { status: 405 }), 'http')!;
  t.is(wrongMethod.code, 'invalid_request');
  t.is(wrongMethod.status, 405);
  t.deepEqual(encodeOpenaiError(wrongMethod, requestId), { error: { message: 'Method Not Allowed', type: 'invalid_request_error', param: null, code: 'invalid_request' } });
  t.is(toGatewayError(Object.assign(new Error('request entity too large'), { status: 413 }), 'http')!.code, 'request_too_large');
  t.is(toGatewayError(Object.assign(new Error('x'), { status: 405 }), 'cli'), undefined, 'a status is the HTTP parser\'s, not a command\'s');
});

test('every catalog entry has a status, an OpenAI type and a description', (t) => {
  for (const [code, entry] of Object.entries(errorCatalog)) {
    t.true(entry.status >= 400 && entry.status < 600, code);
    t.regex(entry.type, /^[a-z_]+$/, code);
    t.true(entry.description.length > 10 && !entry.description.includes('\n'), code);
  }
});
