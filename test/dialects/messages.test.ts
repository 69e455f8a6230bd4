import test from 'ava';
import { decodeCountTokensRequest, encodeCountTokens, messagesDialect } from '../../src/dialects/messages/index.js';
import { decodeOutcome, encodeParts, goldenTests, loadFixtures, messagesAssistantParts, type EncodeFixture } from './chat-completions-and-messages-golden.js';

goldenTests(messagesDialect);

for (const { name, fixture } of loadFixtures<EncodeFixture>('messages', 'encode-')) {
  test(`messages round trip: the content of ${name} decodes back to its parts`, (t) => {
    const { result, chatResult } = encodeParts(messagesDialect, fixture);
    const content = (result as { content: unknown[] }).content;
    const request = messagesDialect.decodeRequest({ model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content }] });
    const expected = messagesAssistantParts(chatResult);
    if (expected.length === 0) t.is(request.messages.length, 1);
    else t.deepEqual(request.messages[1], { role: 'assistant', content: expected });
  });
}

test('messages: stream blocks are numbered 0..n-1 in emission order, one at a time', (t) => {
  for (const { fixture } of loadFixtures<EncodeFixture>('messages', 'encode-')) {
    const { sse } = encodeParts(messagesDialect, fixture);
    const events = sse
      .trim()
      .split('\n\n')
      .map((block) => {
        const [eventLine, dataLine] = block.split('\n');
        const data = JSON.parse(dataLine!.slice('data: '.length)) as { type: string; index?: number };
        t.is(eventLine, `event: ${data.type}`);
        return data;
      });
    t.is(events[0]!.type, 'message_start');
    t.deepEqual(events.slice(-2).map((e) => e.type), ['message_delta', 'message_stop']);
    let open: number | undefined;
    let next = 0;
    for (const event of events) {
      if (event.type === 'content_block_start') {
        t.is(open, undefined);
        t.is(event.index, next++);
        open = event.index;
      } else if (event.type === 'content_block_delta') t.is(event.index, open);
      else if (event.type === 'content_block_stop') {
        t.is(event.index, open);
        open = undefined;
      }
    }
    t.is(open, undefined);
  }
});

test('messages: count_tokens takes the body without max_tokens', (t) => {
  const request = decodeCountTokensRequest({ model: 'claude-x', system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }], stream: true });
  t.is(request.maxOutputTokens, undefined);
  t.false(request.stream);
  t.deepEqual(request.system, [{ type: 'text', text: 'Be brief.' }]);
  t.deepEqual(encodeCountTokens(42), { input_tokens: 42 });
  const outcome = decodeOutcome(decodeCountTokensRequest, { model: 'claude-x', messages: [] });
  t.deepEqual(outcome.detail?.[0]?.loc, ['body', 'messages']);
});

test('messages: the in-stream error is an error event', (t) => {
  const [{ fixture }] = loadFixtures<EncodeFixture>('messages', 'encode-plain-text');
  const encoder = messagesDialect.createStreamEncoder(fixture!.request, fixture!.context);
  t.is(encoder.error('Overloaded', 'overloaded_error'), 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n');
});

test('messages: a stop reason the upstream gave in Anthropic terms is kept when it agrees', (t) => {
  const [{ fixture }] = loadFixtures<EncodeFixture>('messages', 'encode-plain-text');
  const parts = fixture!.parts.map((p) => (p.type === 'finish' ? { ...p, rawFinishReason: 'pause_turn' } : p));
  const { result } = encodeParts(messagesDialect, { ...fixture!, parts });
  t.is((result as { stop_reason: string }).stop_reason, 'pause_turn');
  const disagreeing = fixture!.parts.map((p) => (p.type === 'finish' ? { ...p, rawFinishReason: 'tool_use' } : p));
  t.is((encodeParts(messagesDialect, { ...fixture!, parts: disagreeing }).result as { stop_reason: string }).stop_reason, 'end_turn');
});
