import test from 'ava';
import { ResultAccumulator } from '../../src/model/accumulate.js';
import type { ChatRequest, StreamPart } from '../../src/model/chat.js';
import { estimateInputTokens } from '../../src/model/token-estimate.js';
import { meter } from '../../src/pipeline/meter.js';

const request: ChatRequest = {
  model: 'm',
  system: [],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello there' }] }],
  tools: [],
  stop: [],
  stream: true,
  includeUsage: false,
};

function accumulate(parts: StreamPart[]): ResultAccumulator {
  const accumulator = new ResultAccumulator();
  for (const part of parts) accumulator.push(part);
  return accumulator;
}

const text: StreamPart[] = [
  { type: 'start', id: 'x', model: 'm' },
  { type: 'text_start', index: 0 },
  { type: 'text_delta', index: 0, text: 'x'.repeat(400) },
];
const reported = { inputTokens: 10, cachedInputTokens: 2, cacheWriteInputTokens: 0, outputTokens: 100, reasoningTokens: 0 };

test('a completed stream is billed from the last usage report, not a sum', (t) => {
  const accumulator = accumulate([...text, { type: 'usage', usage: { ...reported, outputTokens: 1 } }, { type: 'usage', usage: reported }, { type: 'finish', finishReason: 'stop', rawFinishReason: 'stop' }]);
  t.deepEqual(meter(request, accumulator, { failed: false, producedOutput: true }), { usage: reported, estimated: false });
});

test('a stream without usage is counted from its text and flagged', (t) => {
  const metered = meter(request, accumulate(text), { failed: false, producedOutput: true });
  t.true(metered.estimated);
  t.is(metered.usage!.outputTokens, 100);
  t.is(metered.usage!.inputTokens, estimateInputTokens(request), 'the input is the estimate of the request');
});

test('a report of zeros beside answered text is no report: counted from the text and flagged, never billed as zero', (t) => {
  const zeros = { inputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 0, reasoningTokens: 0 };
  const accumulator = accumulate([...text, { type: 'usage', usage: zeros }, { type: 'finish', finishReason: 'stop', rawFinishReason: 'stop' }]);
  t.deepEqual(meter(request, accumulator, { failed: false, producedOutput: true }), {
    usage: { inputTokens: estimateInputTokens(request), cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 100, reasoningTokens: 0 },
    estimated: true,
  });
});

test('a cut stream whose report predates the output is billed for what was produced', (t) => {
  const accumulator = accumulate([{ type: 'usage', usage: { ...reported, outputTokens: 1 } }, ...text]);
  const metered = meter(request, accumulator, { failed: true, producedOutput: true });
  t.true(metered.estimated);
  t.is(metered.usage!.outputTokens, 100);
  t.is(metered.usage!.cachedInputTokens, 2, 'the reported input side is kept');
});

test('a failure before any output bills nothing', (t) => {
  t.deepEqual(meter(request, accumulate([{ type: 'start', id: 'x', model: 'm' }]), { failed: true, producedOutput: false }), { usage: undefined, estimated: false });
});
