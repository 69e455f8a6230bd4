// Properties over generated streams: however the upstream splits and interleaves its
// fragments, the parts obey the ordering rules and assemble into exactly what was sent —
// and what an Anthropic stream produced (thinking + signature) goes back upstream unchanged.
import test from 'ava';
import fc from 'fast-check';
import { ResultAccumulator } from '../../src/model/accumulate.js';
import type { ChatRequest } from '../../src/model/chat.js';
import { anthropicChatAdapter } from '../../src/vendors/anthropic/chat.js';
import { openaiChatAdapter } from '../../src/vendors/openai/chat.js';
import type { SseEvent, UpstreamTarget } from '../../src/vendors/types.js';
import { chatRequest, parseEvents } from './fixtures.js';
import { streamViolations } from './stream-invariants.js';

const target: UpstreamTarget = {
  model: 'upstream-model',
  baseUrl: 'http://127.0.0.1:9',
  capabilities: { reasoningEfforts: ['low', 'medium', 'high'], canDisableReasoning: true, vision: true, tools: true, maxOutputTokens: 32000 },
  maxOutputTokens: 16000,
  search: false,
};

/** Splits `text` at the given (sorted, distinct) cut points. */
function split(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const point of [...points, text.length]) {
    if (point > from) pieces.push(text.slice(from, point));
    from = Math.max(from, point);
  }
  return pieces;
}

/** A deterministic pseudo-random sequence from a seed (the interleaving order). */
function* randomSequence(seed: number): Generator<number> {
  let state = seed >>> 0 || 1;
  for (;;) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    yield state / 2 ** 32;
  }
}

const chunk = (body: Record<string, unknown>): SseEvent => ({
  data: JSON.stringify({ id: 'chatcmpl-P', object: 'chat.completion.chunk', created: 1, model: 'gpt-x', ...body }),
});

test('openai: parallel tool calls split and interleaved any way assemble exactly', (t) => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ arguments: fc.json(), cuts: fc.array(fc.nat(), { maxLength: 6 }) }), { minLength: 1, maxLength: 4 }),
      fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
      fc.integer(),
      fc.nat({ max: 3 }),
      fc.boolean(),
      (calls, preamble, seed, groupSize, usageInFinishChunk) => {
        const pending = calls.map((call, position) => ({ position, fragments: split(call.arguments, call.cuts), started: false }));
        const random = randomSequence(seed);
        const events: SseEvent[] = [chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })];
        if (preamble) events.push(chunk({ choices: [{ index: 0, delta: { content: preamble }, finish_reason: null }] }));
        let remaining = pending.filter((call) => !call.started || call.fragments.length > 0);
        while (remaining.length > 0) {
          const items: Record<string, unknown>[] = [];
          for (let i = 0; i <= groupSize && remaining.length > 0; i++) {
            const call = remaining[Math.floor(random.next().value! * remaining.length)];
            const fragment = call.fragments.shift() ?? '';
            items.push(
              call.started
                ? { index: call.position, function: { arguments: fragment } }
                : { index: call.position, id: `call_${call.position}`, type: 'function', function: { name: `tool_${call.position}`, arguments: fragment } },
            );
            call.started = true;
            remaining = pending.filter((c) => !c.started || c.fragments.length > 0);
          }
          events.push(chunk({ choices: [{ index: 0, delta: { tool_calls: items }, finish_reason: null }] }));
        }
        const usage = { prompt_tokens: 100, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 40 } };
        events.push(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], ...(usageInFinishChunk ? { usage } : {}) }));
        if (!usageInFinishChunk) events.push(chunk({ choices: [], usage }));
        events.push({ data: '[DONE]' });

        const { parts, error } = parseEvents(openaiChatAdapter, target, events);
        if (error) throw error;
        t.deepEqual(streamViolations(parts), []);
        const accumulator = new ResultAccumulator();
        for (const part of parts) accumulator.push(part);
        const result = accumulator.result({ created: 1 });
        const toolCalls = result.content.filter((part) => part.type === 'tool_call');
        t.deepEqual(
          Object.fromEntries(toolCalls.map((call) => [call.id, [call.name, call.arguments]])),
          Object.fromEntries(calls.map((call, position) => [`call_${position}`, [`tool_${position}`, call.arguments]])),
        );
        t.is(result.finishReason, 'tool_calls');
        t.deepEqual(result.usage, { inputTokens: 100, cachedInputTokens: 40, cacheWriteInputTokens: 0, outputTokens: 50, reasoningTokens: 0 });
        t.is(parts.at(-1)?.type, 'finish');
      },
    ),
    { numRuns: 200 },
  );
});

const named = (data: Record<string, unknown>): SseEvent => ({ event: String(data.type), data: JSON.stringify(data) });

test('anthropic: thinking with its signature survives the stream and goes back upstream unchanged', (t) => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 1 }),
      fc.array(fc.nat(), { maxLength: 5 }),
      fc.base64String({ minLength: 4 }),
      fc.string({ minLength: 1 }),
      fc.array(fc.nat(), { maxLength: 5 }),
      (thinking, thinkingCuts, signature, text, textCuts) => {
        const events: SseEvent[] = [
          named({ type: 'message_start', message: { id: 'msg_P', type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }),
          named({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
          ...split(thinking, thinkingCuts).map((piece) => named({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: piece } })),
          named({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature } }),
          named({ type: 'content_block_stop', index: 0 }),
          named({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }),
          ...split(text, textCuts).map((piece) => named({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: piece } })),
          named({ type: 'content_block_stop', index: 1 }),
          named({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 20 } }),
          named({ type: 'message_stop' }),
        ];
        const { parts, error } = parseEvents(anthropicChatAdapter, target, events);
        if (error) throw error;
        t.deepEqual(streamViolations(parts), []);
        const accumulator = new ResultAccumulator();
        for (const part of parts) accumulator.push(part);
        const result = accumulator.result({ created: 1 });
        t.deepEqual(result.content, [
          { type: 'reasoning', text: thinking, signature },
          { type: 'text', text },
        ]);

        const next: ChatRequest = chatRequest({
          reasoningEffort: 'low',
          messages: [
            { role: 'user', content: [{ type: 'text', text: 'question' }] },
            { role: 'assistant', content: result.content },
            { role: 'user', content: [{ type: 'text', text: 'follow-up' }] },
          ],
        });
        const body = anthropicChatAdapter.buildRequest(next, target).body as { messages: { role: string; content: unknown[] }[] };
        t.deepEqual(body.messages[1], {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking, signature },
            { type: 'text', text },
          ],
        });
      },
    ),
    { numRuns: 200 },
  );
});
