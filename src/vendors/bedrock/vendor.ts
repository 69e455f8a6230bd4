// AWS Bedrock: chat through Converse / ConverseStream for Claude, Llama, Nova and Mistral
// models, SigV4-signed per request in the provider's region; no media or jobs.
import { z } from 'zod';
import type { Vendor } from '../vendor.js';
import { bedrockChatAdapter } from './chat.js';
import { regionTemplate } from './endpoint.js';
import { signBedrockRequest } from './signing.js';

const environmentVariableName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'expected an environment variable name such as AWS_ACCESS_KEY_ID');

export const bedrockVendor: Vendor = {
  chat: bedrockChatAdapter,
  media: [],
  jobs: [],
  // `{region}` is filled in from the provider's region (endpoint.ts): one URL per region.
  defaultBaseUrl: regionTemplate,
  providerSettings: {
    // Lenient on purpose: another vendor's `region` (Vertex's us-central1, global) shares the field.
    region: z.string().regex(/^[a-z0-9-]+$/, 'expected a region such as us-east-1'),
    /** The key pair that signs requests (SigV4); without it, api_key_env may name a Bedrock API key. */
    access_key_id_env: environmentVariableName.optional(),
    secret_access_key_env: environmentVariableName.optional(),
    /** For temporary credentials (an assumed role's). */
    session_token_env: environmentVariableName.optional(),
  },
  signRequest: signBedrockRequest,
};
