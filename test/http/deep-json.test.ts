// JSON that nests too deep, or is too big to echo, over HTTP. Before: 5000 nested `[` in a field
// that fails validation answered a plain-text "Internal Server Error" (the 422 could not be
// encoded), a 5000-deep tool schema overflowed the stack in the token estimate (500), and a 422
// echoed a multi-megabyte input back whole. Now the depth is bounded once, right after parsing:
// a 422 whose `loc` leads to where the limit (64 levels) was passed, in the route's dialect.
import test from 'ava';
import { createTestDatabase } from '../helpers/backends.js';
import { startGateway } from '../helpers/gateway.js';

const nestedLists = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const nestedObjects = (levels: number) => `${'{"a":'.repeat(levels)}{}${'}'.repeat(levels)}`;
const chat = (extra: string) => `{"model":"sim/chat","messages":[{"role":"user","content":"hi"}]${extra}}`;
const tooDeep = { msg: 'Input should be nested at most 64 levels deep', type: 'too_deep', ctx: { max_depth: 64 } };

test('deep JSON: 422 naming where 64 levels were passed, in the route dialect; the limit itself passes; 422s echo bounded inputs', async (t) => {
  const database = await createTestDatabase('sqlite');
  t.teardown(() => database.drop());
  const gateway = await startGateway(t, database);
  const client = await gateway.newClient({ balanceUnits: 10_000_000n });
  const post = async (path: string, body: string) => {
    const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${client.key}`, 'content-type': 'application/json' }, body });
    const text = await response.text();
    t.is(response.headers.get('content-type'), 'application/json; charset=utf-8', `${path}: ${text.slice(0, 200)}`);
    return { status: response.status, bytes: text.length, body: JSON.parse(text) };
  };

  // The body is level 1, `prompt` level 2: its 63rd nested list is level 65.
  const zeros = (count: number) => Array.from({ length: count }, () => 0);
  const prompt = await post('/v1/images/generations', `{"model":"sim/image","prompt":${nestedLists(5000)}}`);
  t.is(prompt.status, 422);
  t.deepEqual(prompt.body.detail, [{ loc: ['body', 'prompt', ...zeros(63)], ...tooDeep }]);
  t.is(prompt.body.error.code, 'validation_error');
  t.is(prompt.body.error.message, `body.prompt.${zeros(63).join('.')}: Input should be nested at most 64 levels deep`);

  const stop = await post('/v1/chat/completions', chat(`,"stop":${nestedLists(5000)}`));
  t.is(stop.status, 422);
  t.deepEqual(stop.body.detail, [{ loc: ['body', 'stop', ...zeros(63)], ...tooDeep }]);

  const metadata = await post('/v1/messages', `{"model":"sim/chat","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"metadata":${nestedLists(5000)}}`);
  t.is(metadata.status, 422);
  t.is(metadata.body.type, 'error', 'Anthropic error shape');
  t.is(metadata.body.error.type, 'invalid_request_error');
  t.deepEqual(metadata.body.detail, [{ loc: ['body', 'metadata', ...zeros(63)], ...tooDeep }]);

  // tools[0].function.parameters: body 1, tools 2, tools[0] 3, function 4, parameters 5, so 60 "a" levels reach 65.
  const schema = await post('/v1/chat/completions', chat(`,"tools":[{"type":"function","function":{"name":"f","parameters":${nestedObjects(5000)}}}]`));
  t.is(schema.status, 422);
  t.deepEqual(schema.body.detail, [{ loc: ['body', 'tools', 0, 'function', 'parameters', ...Array.from({ length: 60 }, () => 'a')], ...tooDeep }]);
  const atTheLimit = await post('/v1/chat/completions', chat(`,"tools":[{"type":"function","function":{"name":"f","parameters":${nestedObjects(59)}}}]`));
  t.is(atTheLimit.status, 200, 'exactly 64 levels are served');
  const pastTheLimit = await post('/v1/chat/completions', chat(`,"tools":[{"type":"function","function":{"name":"f","parameters":${nestedObjects(60)}}}]`));
  t.is(pastTheLimit.status, 422, '65 levels are not');

  // Tool-call arguments are JSON inside a string: parsed for the Anthropic-speaking upstream
  // (the simulator), a 5000-deep object could not be serialized again (500); it becomes {}.
  const deepArguments = JSON.stringify(nestedObjects(5000));
  const history = await post(
    '/v1/chat/completions',
    `{"model":"sim/chat","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":${deepArguments}}}]},{"role":"tool","tool_call_id":"call_1","content":"done"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]}`,
  );
  t.is(history.status, 200, JSON.stringify(history.body).slice(0, 300));

  // A 3 MB string and a 300,000-item list refused for their type: the 422 stays small.
  const bigString = 'x'.repeat(3_000_000);
  const stringInput = await post('/v1/chat/completions', `{"model":"sim/chat","messages":"${bigString}"}`);
  t.is(stringInput.status, 422);
  t.true(stringInput.bytes < 3000, `${stringInput.bytes} bytes`);
  t.deepEqual(stringInput.body.detail, [{ loc: ['body', 'messages'], msg: 'Input should be a valid list', type: 'list_type', input: `${'x'.repeat(1000)}… (3000000 characters)` }]);
  const bigList = await post('/v1/chat/completions', `{"model":[${Array.from({ length: 300_000 }, () => '1').join(',')}],"messages":[{"role":"user","content":"hi"}]}`);
  t.is(bigList.status, 422);
  t.deepEqual(bigList.body.detail, [{ loc: ['body', 'model'], msg: 'Input should be a valid string', type: 'string_type', input: '[list of 300000 items, too large to echo]' }]);
  t.true(bigList.bytes < 2000, `${bigList.bytes} bytes`);
  const smallList = await post('/v1/chat/completions', '{"model":[1,2,3],"messages":[{"role":"user","content":"hi"}]}');
  t.deepEqual(smallList.body.detail[0].input, [1, 2, 3], 'small inputs are echoed as they are');
  // 200,000 invalid messages: at most 100 detail entries.
  const manyWrong = await post('/v1/chat/completions', `{"model":"sim/chat","messages":[${Array.from({ length: 200_000 }, () => '1').join(',')}]}`);
  t.is(manyWrong.status, 422);
  t.is(manyWrong.body.detail.length, 100);
  t.true(manyWrong.bytes < 30_000, `${manyWrong.bytes} bytes`);

  t.is(Number((await database.db('holds').count({ n: '*' }).first())?.n), 2, 'only the two served requests were held');
});
