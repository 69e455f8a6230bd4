import { openaiCompatibleChatAdapter } from '../../src/vendors/openai-compatible/chat.js';
import { testFixtures } from './fixtures.js';

testFixtures('openai-compatible', openaiCompatibleChatAdapter, {
  model: 'deepseek-reasoner',
  baseUrl: 'https://api.deepseek.com/v1',
  apiKey: 'sk-test-compatible',
  capabilities: { reasoningEfforts: [], canDisableReasoning: false, vision: false, tools: true, maxOutputTokens: 8192 },
  maxOutputTokens: 4096,
  search: false,
});
