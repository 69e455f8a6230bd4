import { anthropicChatAdapter } from '../../src/vendors/anthropic/chat.js';
import { testFixtures } from './fixtures.js';

testFixtures('anthropic', anthropicChatAdapter, {
  model: 'claude-sonnet-4-5',
  baseUrl: 'https://api.anthropic.com',
  apiKey: 'sk-ant-test',
  capabilities: { reasoningEfforts: ['low', 'medium', 'high'], canDisableReasoning: true, vision: true, tools: true, maxOutputTokens: 64000 },
  maxOutputTokens: 16000,
  search: false,
});
