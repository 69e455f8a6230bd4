import test from 'ava';
import { anthropicAdapter } from '../../src/vendors/anthropic/chat.js';
import { chatAdapterFor } from '../../src/vendors/registry.js';
import { openaiAdapter } from '../../src/vendors/openai/chat.js';
import { openaiCompatibleAdapter } from '../../src/vendors/openai-compatible/chat.js';

test('each upstream kind has its adapter; the simulator speaks Anthropic messages', (t) => {
  t.is(chatAdapterFor('openai'), openaiAdapter);
  t.is(chatAdapterFor('openai-compatible'), openaiCompatibleAdapter);
  t.is(chatAdapterFor('anthropic'), anthropicAdapter);
  t.is(chatAdapterFor('sim'), anthropicAdapter);
  t.deepEqual([openaiAdapter.kind, openaiCompatibleAdapter.kind, anthropicAdapter.kind], ['openai', 'openai-compatible', 'anthropic']);
});

test('every parser is fresh: two streams never share state', (t) => {
  for (const adapter of [openaiAdapter, openaiCompatibleAdapter, anthropicAdapter]) {
    const target = { model: 'm', baseUrl: 'http://127.0.0.1:1', capabilities: { reasoningEfforts: [], canDisableReasoning: false, vision: false, tools: false, maxOutputTokens: 10 }, maxOutputTokens: 10, search: false };
    const request = { model: 'm', system: [], messages: [], tools: [], stop: [], stream: true, includeUsage: false };
    t.not(adapter.createStreamParser(target, request), adapter.createStreamParser(target, request));
  }
});
