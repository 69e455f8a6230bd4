// The expected halves of the chat-completions and messages golden fixtures checked against the
// vendors' published wire rules (OpenAI's chat.completion.chunk stream, Anthropic's Messages
// event stream; /work/shared/reference/wire-formats.md §1 and §2 sum them up), so that a fixture
// cannot drift into something the vendor would never send, and the encoder with it. The
// responses fixtures get the same from responses-encode.test.ts ("keeps the rules the SDK relies on").
import test, { type ExecutionContext } from 'ava';
import { loadFixtures, type EncodeFixture } from './chat-completions-and-messages-golden.js';

const chatFinishReasons = ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'];
const messagesStopReasons = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal'];

/** The SSE frames of a fixture: each is the text between blank lines. */
function frames(sse: string): string[] {
  if (!sse.endsWith('\n\n')) throw new Error('SSE text must end with a blank line');
  return sse.slice(0, -2).split('\n\n');
}

function checkChatStream(t: ExecutionContext, fixture: EncodeFixture): void {
  const all = frames(fixture.sse!);
  t.is(all.at(-1), 'data: [DONE]', 'the stream ends with data: [DONE]');
  const chunks = all.slice(0, -1).map((frame) => {
    t.true(frame.startsWith('data: ') && !frame.includes('\n'), `one data: line, no event: line: ${frame.slice(0, 80)}`);
    return JSON.parse(frame.slice('data: '.length)) as Record<string, any>;
  });
  const first = chunks[0]!;
  for (const chunk of chunks) {
    t.is(chunk.object, 'chat.completion.chunk');
    t.deepEqual([chunk.id, chunk.created, chunk.model], [first.id, first.created, first.model], 'the same id, created and model on every chunk');
    t.false('error' in chunk, 'no error key (the SDK takes a chunk with one for an error)');
  }
  const choices = chunks.flatMap((chunk) => chunk.choices as Record<string, any>[]);
  t.true(choices.some((choice) => choice.delta?.role === 'assistant'), 'some delta sets the role');
  const finishes = choices.map((choice) => choice.finish_reason).filter((reason) => reason !== null && reason !== undefined);
  t.is(finishes.length, 1, 'one chunk sets finish_reason');
  t.true(chatFinishReasons.includes(finishes[0]), `finish_reason ${finishes[0]}`);
  if (fixture.request.includeUsage) {
    for (const chunk of chunks.slice(0, -1)) t.is(chunk.usage, null, 'include_usage: usage is null on every chunk but the last');
    const last = chunks.at(-1)!;
    t.deepEqual(last.choices, [], 'the usage chunk has no choices');
    t.is(last.usage.total_tokens, last.usage.prompt_tokens + last.usage.completion_tokens);
  } else {
    for (const chunk of chunks) t.false('usage' in chunk, 'without include_usage there is no usage key');
  }
  const started = new Set<number>();
  for (const call of choices.flatMap((choice) => (choice.delta?.tool_calls ?? []) as Record<string, any>[])) {
    if (!started.has(call.index)) {
      started.add(call.index);
      t.true(typeof call.id === 'string' && call.type === 'function' && typeof call.function?.name === 'string' && call.function.arguments === '', `a call's first fragment: ${JSON.stringify(call)}`);
    } else {
      t.deepEqual(Object.keys(call).sort(), ['function', 'index'], 'later fragments carry the index and arguments only');
      t.deepEqual(Object.keys(call.function), ['arguments']);
    }
  }
  const result = fixture.result as Record<string, any>;
  t.is(result.object, 'chat.completion');
  for (const choice of result.choices) {
    t.is(choice.message.role, 'assistant');
    t.true(chatFinishReasons.includes(choice.finish_reason), `finish_reason ${choice.finish_reason}`);
    for (const call of choice.message.tool_calls ?? []) t.is(typeof call.function.arguments, 'string', 'arguments are a JSON string');
  }
  if (result.usage) t.is(result.usage.total_tokens, result.usage.prompt_tokens + result.usage.completion_tokens);
}

function checkMessagesStream(t: ExecutionContext, fixture: EncodeFixture): void {
  const events = frames(fixture.sse!).map((frame) => {
    const [eventLine, dataLine, ...rest] = frame.split('\n');
    t.is(rest.length, 0, `one event: and one data: line: ${frame.slice(0, 80)}`);
    const data = JSON.parse(dataLine!.slice('data: '.length)) as Record<string, any>;
    t.is(eventLine, `event: ${data.type}`, 'the event: line names the payload type');
    return data;
  });
  const sequence = events.filter((event) => event.type !== 'ping');
  const start = sequence[0]!;
  t.is(start.type, 'message_start');
  t.deepEqual([start.message.content, start.message.stop_reason, start.message.stop_sequence], [[], null, null], 'message_start: no content, no stop yet');
  t.is(typeof start.message.usage.input_tokens, 'number');
  t.deepEqual(sequence.slice(-2).map((event) => event.type), ['message_delta', 'message_stop']);
  const delta = sequence.at(-2)!;
  t.true(messagesStopReasons.includes(delta.delta.stop_reason), `stop_reason ${delta.delta.stop_reason}`);
  t.true('stop_sequence' in delta.delta);
  t.is(typeof delta.usage.output_tokens, 'number', 'message_delta carries usage.output_tokens');
  let next = 0;
  let open: number | undefined;
  const blocks = sequence.slice(1, -2);
  blocks.forEach((event, position) => {
    if (event.type === 'content_block_start') {
      t.is(open, undefined, 'blocks do not overlap');
      t.is(event.index, next, 'blocks are numbered 0, 1, 2… in order');
      open = event.index;
      const block = event.content_block;
      if (block.type === 'text') t.is(block.text, '', 'a text block starts empty');
      if (block.type === 'thinking') t.deepEqual([block.thinking, block.signature], ['', ''], 'a thinking block starts empty');
      if (block.type === 'tool_use') t.deepEqual(block.input, {}, 'a tool_use block starts with input {}');
    } else if (event.type === 'content_block_delta') {
      t.is(event.index, open, 'a delta belongs to the open block');
      if (event.delta.type === 'signature_delta') t.is(blocks[position + 1]?.type, 'content_block_stop', 'the signature comes right before its block stops');
    } else {
      t.is(event.type, 'content_block_stop', `only block events between message_start and message_delta, not ${event.type}`);
      t.is(event.index, open);
      open = undefined;
      next++;
    }
  });
  const result = fixture.result as Record<string, any>;
  t.deepEqual([result.type, result.role], ['message', 'assistant']);
  t.true(messagesStopReasons.includes(result.stop_reason), `stop_reason ${result.stop_reason}`);
  t.is(result.stop_reason, delta.delta.stop_reason, 'the body and the stream agree on why it stopped');
  t.true('stop_sequence' in result);
}

for (const { name, fixture } of loadFixtures<EncodeFixture>('chat-completions', 'encode-')) {
  test(`chat-completions ${name}: the fixture keeps OpenAI's chunk stream rules`, (t) => checkChatStream(t, fixture));
}
for (const { name, fixture } of loadFixtures<EncodeFixture>('messages', 'encode-')) {
  test(`messages ${name}: the fixture keeps Anthropic's event stream rules`, (t) => checkMessagesStream(t, fixture));
}
