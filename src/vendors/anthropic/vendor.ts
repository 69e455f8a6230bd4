// Anthropic: Messages for chat; no media or jobs.
import type { Vendor } from '../vendor.js';
import { anthropicChatAdapter } from './chat.js';

export const anthropicVendor: Vendor = {
  chat: anthropicChatAdapter,
  media: [],
  jobs: [],
  defaultBaseUrl: 'https://api.anthropic.com',
};
