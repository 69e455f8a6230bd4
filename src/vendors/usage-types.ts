// The usage contract: what a vendor says it billed over a period, read from its usage API
// (`gateway reconcile`, src/billing/reconcile.ts). A vendor that has such an API declares it on
// its Vendor (vendor.ts `usage`); one that has none leaves it out and reconcile says "no usage
// API". Operations are built and parsed like the media ones and sent by the media transport.
import type { MediaAdapter, MediaOperation } from './media-types.js';

/** One page of a period's usage: [since, until) in ms, and the cursor of the page after the first. */
export interface UsageQuery {
  readonly since: number;
  readonly until: number;
  readonly page?: string;
}

/** What the vendor reports for one of its models (its own name: the route's `model`) over the period. */
export interface ReportedUsage {
  readonly upstreamModel: string;
  readonly requests: number;
  /** All input tokens, cached ones included. */
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  /** All output tokens, reasoning included. */
  readonly outputTokens: number;
}

export interface UsagePage {
  readonly usage: readonly ReportedUsage[];
  /** The cursor of the next page; absent on the last. */
  readonly nextPage?: string;
}

/** What a usage record is for, as usage APIs tell usage apart (the record's endpoint decides: usageCategoryOf). */
export type UsageCategory = 'chat' | 'embeddings' | 'images' | 'speech' | 'transcriptions' | 'decisions' | 'videos' | 'music';

export interface UsageApi {
  /** The categories its reports cover: usage of others is not compared with it. */
  readonly covers: readonly UsageCategory[];
  /** One operation per kind of usage the vendor reports apart (completions, embeddings…); each is paged. */
  readonly reports: readonly MediaOperation<UsageQuery, UsagePage>[];
  readonly parseError: MediaAdapter['parseError'];
}

const categories: Record<string, UsageCategory> = {
  'chat-completions': 'chat',
  messages: 'chat',
  responses: 'chat',
  'generate-content': 'chat',
  embeddings: 'embeddings',
  images: 'images',
  'image-edits': 'images',
  'image-upscale': 'images',
  speech: 'speech',
  transcriptions: 'transcriptions',
  decisions: 'decisions',
  videos: 'videos',
  'videos/upscale': 'videos',
  'audio/music': 'music',
};

/** The category of a usage record's endpoint; undefined for an endpoint of no category. */
export function usageCategoryOf(endpoint: string): UsageCategory | undefined {
  return Object.hasOwn(categories, endpoint) ? categories[endpoint] : undefined;
}
