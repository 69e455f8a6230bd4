// Yandex Cloud Foundation Models: YandexGPT chat (chat.ts) and YandexART images (images.ts).
// Every request names the folder it is billed to (`folder_id`); the key is an API key or an
// IAM token (`auth`); YandexART's operations are polled at `operations_url`.
import { z } from 'zod';
import type { Vendor } from '../vendor.js';
import { yandexChatAdapter } from './chat.js';
import { yandexArtAdapter } from './images.js';

export const yandexVendor: Vendor = {
  chat: yandexChatAdapter,
  media: [yandexArtAdapter],
  jobs: [],
  defaultBaseUrl: 'https://llm.api.cloud.yandex.net',
  providerSettings: {
    folder_id: z.string().min(1),
    auth: z.enum(['api_key', 'iam_token']).optional(),
    operations_url: z.url().optional(),
  },
};
