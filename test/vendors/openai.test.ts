import { openaiChatAdapter } from '../../src/vendors/openai/chat.js';
import { testFixtures } from './fixtures.js';

testFixtures('openai', openaiChatAdapter, {
  model: 'gpt-4o-mini',
  baseUrl: 'https://api.openai.com/v1',
  apiKey: 'sk-test-openai',
  capabilities: { reasoningEfforts: [], canDisableReasoning: false, vision: true, tools: true, maxOutputTokens: 16384 },
  maxOutputTokens: 4096,
  search: false,
});
