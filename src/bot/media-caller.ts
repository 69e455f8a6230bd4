// The media pipeline's caller (MediaCaller, pipeline/media.ts) for a call the bot makes as the
// account's bot key (bot-call.ts): the key, the route's scope, and the bot call's own log object
// (the pipeline notes the model, provider and charge on it; the request-log row reads it).
import type { MediaCaller } from '../pipeline/media.js';
import type { BotCall } from './bot-call.js';

export function mediaCaller(call: BotCall, scope: MediaCaller['scope']): MediaCaller {
  return { apiKey: call.apiKey, scope, requestId: call.requestId, log: Object.assign(call.log, { chargedUnits: 0n }) };
}
