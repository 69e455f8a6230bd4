// Provider settings of `gemini` providers, and where each request goes. Two ways in:
//   - `auth: api_key` (default): the Gemini API (generativelanguage.googleapis.com) with the
//     provider's key in `x-goog-api-key`;
//   - `auth: vertex`: Vertex AI with a service account (its JSON in the environment variable
//     `service_account_env` names), exchanged for an access token (vertex-token.ts) sent as
//     `Authorization: Bearer`, at `{location}-aiplatform.googleapis.com/v1/projects/{project}/…`.
import { z } from 'zod';

export const geminiApiBaseUrl = 'https://generativelanguage.googleapis.com';

const environmentName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'expected an environment variable name such as GOOGLE_SERVICE_ACCOUNT_JSON');

export const geminiProviderSettings = {
  auth: z.enum(['api_key', 'vertex']).optional(),
  /** The environment variable holding the service account's JSON key (Vertex). */
  service_account_env: environmentName.optional(),
  /** The Google Cloud project (Vertex; required there). */
  project: z.string().min(1).optional(),
  /** The Vertex region ("us-central1", "europe-west4", "global"); us-central1 when absent. */
  location: z.string().regex(/^[a-z0-9-]+$/, 'expected a Google Cloud location such as us-central1').optional(),
};

export interface GeminiEndpoint {
  readonly vertex: boolean;
  /** `{base}/…/models/{model}` with no method suffix. */
  readonly modelUrl: string;
  readonly headers: Record<string, string>;
}

interface Target {
  readonly model: string;
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly settings?: Readonly<Record<string, unknown>>;
}

export function isVertex(settings: Readonly<Record<string, unknown>> | undefined): boolean {
  return settings?.auth === 'vertex';
}

/** The Vertex region of a provider. */
export function vertexLocation(settings: Readonly<Record<string, unknown>> | undefined): string {
  return typeof settings?.location === 'string' ? settings.location : 'us-central1';
}

/**
 * The model's address and the auth headers. In Vertex mode a provider left on the Gemini API's
 * default base URL goes to the region's Vertex host; a configured base_url (a proxy, the
 * simulator) is kept and gets the Vertex path. A Vertex provider without `project` is refused
 * by the credential exchange before any request is built (vertex-token.ts).
 */
export function endpointOf(target: Target): GeminiEndpoint {
  const base = target.baseUrl.replace(/\/+$/, '');
  const model = encodeURIComponent(target.model);
  if (!isVertex(target.settings)) {
    const versioned = /\/v1(beta|alpha)?$/.test(base) ? base : `${base}/v1beta`;
    return { vertex: false, modelUrl: `${versioned}/models/${model}`, headers: target.apiKey ? { 'x-goog-api-key': target.apiKey } : {} };
  }
  const location = vertexLocation(target.settings);
  const host = base === geminiApiBaseUrl ? (location === 'global' ? 'https://aiplatform.googleapis.com' : `https://${location}-aiplatform.googleapis.com`) : base;
  const projectId = typeof target.settings?.project === 'string' ? target.settings.project : '-';
  const versioned = /\/v1(beta1)?$/.test(host) ? host : `${host}/v1`;
  return {
    vertex: true,
    modelUrl: `${versioned}/projects/${encodeURIComponent(projectId)}/locations/${location}/publishers/google/models/${model}`,
    headers: target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {},
  };
}
