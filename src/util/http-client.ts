// The parts of undici the gateway uses (an Agent, its connector, its errors and `request`),
// each required from its own file. undici's index also loads fetch, WebSocket, EventSource,
// the mock agents, the cache stores and every interceptor, which no process of ours calls:
// 4.8 MB of V8 heap where these parts are 1.8 (docs/performance.md, "Idle memory"). They are
// undici's own modules, so an error thrown here is the same class as `errors.X` of 'undici'.
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
export type Agent = Undici.Agent;
export const buildConnector = require('undici/lib/core/connect.js') as typeof Undici.buildConnector;
export const errors = require('undici/lib/core/errors.js') as typeof Undici.errors;

type RequestOptions = Omit<Undici.Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
  readonly method: Undici.Dispatcher.HttpMethod;
  /** Always given: the gateway never sends through undici's global dispatcher. */
  readonly dispatcher: Undici.Dispatcher;
};

const dispatcherRequest = require('undici/lib/api/api-request.js') as (this: Undici.Dispatcher, options: Undici.Dispatcher.RequestOptions) => Promise<Undici.Dispatcher.ResponseData>;
const { parseURL } = require('undici/lib/core/util.js') as { parseURL(url: string | URL): URL };

/** undici's `request(url, options)`, as its index builds it, for a call that names its dispatcher and method. */
export function request(url: string | URL, options: RequestOptions): Promise<Undici.Dispatcher.ResponseData> {
  const target = parseURL(url);
  return dispatcherRequest.call(options.dispatcher, {
    ...options,
    origin: target.origin,
    path: target.search ? `${target.pathname}${target.search}` : target.pathname,
  });
}
