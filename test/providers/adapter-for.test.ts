import test from 'ava';
import { anthropicAdapter } from '../../src/providers/anthropic/adapter.js';
import { adapterFor } from '../../src/providers/index.js';
import { openaiAdapter } from '../../src/providers/openai/adapter.js';
import { openaiCompatibleAdapter } from '../../src/providers/openai-compatible/adapter.js';

test('each upstream kind has its adapter; the simulator speaks Anthropic messages', (t) => {
  t.is(adapterFor('openai'), openaiAdapter);
  t.is(adapterFor('openai-compatible'), openaiCompatibleAdapter);
  t.is(adapterFor('anthropic'), anthropicAdapter);
  t.is(adapterFor('sim'), anthropicAdapter);
  t.deepEqual([openaiAdapter.kind, openaiCompatibleAdapter.kind, anthropicAdapter.kind], ['openai', 'openai-compatible', 'anthropic']);
});

test('every parser is fresh: two streams never share state', (t) => {
  for (const adapter of [openaiAdapter, openaiCompatibleAdapter, anthropicAdapter]) {
    const target = { model: 'm', baseUrl: 'http://127.0.0.1:1', capabilities: { reasoningEfforts: [], canDisableReasoning: false, vision: false, tools: false, maxOutputTokens: 10 }, maxOutputTokens: 10, search: false };
    const request = { model: 'm', system: [], messages: [], tools: [], stop: [], stream: true, includeUsage: false };
    t.not(adapter.createStreamParser(target, request), adapter.createStreamParser(target, request));
  }
});
