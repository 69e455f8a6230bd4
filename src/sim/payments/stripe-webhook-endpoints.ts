// The simulated Stripe account's webhook endpoints (POST/GET/DELETE /v1/webhook_endpoints):
// where its events go (stripe-webhooks.ts) and the `whsec_…` secret each is signed with,
// answered once, when the endpoint is made, as Stripe answers it.
import { randomBytes } from 'node:crypto';
import { noSuch, StripeSimError } from './stripe-errors.js';
import type { FormObject } from './stripe-form.js';
import { listPage, optionalString, refuseUnknown, urlOf } from './stripe-params.js';
import { stripeId, type WireObject } from './stripe-shop.js';

export interface WebhookEndpoint {
  readonly id: string;
  readonly created: number;
  readonly url: string;
  readonly enabledEvents: readonly string[];
  readonly secret: string;
  readonly description: string | null;
  readonly apiVersion: string | null;
}

const endpointParameters = new Set(['url', 'enabled_events', 'description', 'api_version', 'metadata', 'expand']);

export class WebhookEndpoints {
  private readonly endpoints = new Map<string, WebhookEndpoint>();

  constructor(private readonly now: () => number = Date.now) {}

  values(): Iterable<WebhookEndpoint> {
    return this.endpoints.values();
  }

  /** `apiVersion`: the Stripe-Version the request was made with, the version its events are written in unless `api_version` says another. */
  create(params: FormObject, apiVersion: string | null): WireObject {
    refuseUnknown(params, endpointParameters);
    const url = urlOf(params, 'url', true)!;
    const events = params.enabled_events;
    if (!Array.isArray(events) || events.length === 0 || !events.every((event) => typeof event === 'string' && /^(\*|[a-z_]+(\.[a-z_]+)+)$/.test(event))) {
      throw new StripeSimError(400, 'invalid_request_error', 'Missing required param: enabled_events.', 'parameter_missing', 'enabled_events');
    }
    const endpoint: WebhookEndpoint = {
      id: stripeId('we'),
      created: Math.floor(this.now() / 1000),
      url,
      enabledEvents: events as string[],
      secret: `whsec_${randomBytes(24).toString('hex')}`,
      description: optionalString(params, 'description', 5000),
      apiVersion: optionalString(params, 'api_version', 40) ?? apiVersion,
    };
    this.endpoints.set(endpoint.id, endpoint);
    return { ...render(endpoint), secret: endpoint.secret };
  }

  retrieve(id: string): WireObject {
    const endpoint = this.endpoints.get(id);
    if (!endpoint) throw noSuch('webhook_endpoint', id, 'webhook_endpoint');
    return render(endpoint);
  }

  list(params: FormObject): WireObject {
    return listPage([...this.endpoints.values()].reverse(), params, '/v1/webhook_endpoints', render);
  }

  delete(id: string): WireObject {
    if (!this.endpoints.delete(id)) throw noSuch('webhook_endpoint', id, 'webhook_endpoint');
    return { id, object: 'webhook_endpoint', deleted: true };
  }
}

function render(endpoint: WebhookEndpoint): WireObject {
  return { id: endpoint.id, object: 'webhook_endpoint', api_version: endpoint.apiVersion, created: endpoint.created, description: endpoint.description, enabled_events: [...endpoint.enabledEvents], livemode: false, metadata: {}, status: 'enabled', url: endpoint.url };
}
