// GigaChat under the simulator's `/gigachat` prefix: the OAuth endpoint (oauth.ts, also at
// /gigachat/api/v2/oauth: a provider points auth_url there), chat (chat.ts) and embeddings
// (embeddings.ts), which need a token the OAuth endpoint issued; GET /__stats counts tokens.
import type { VendorSimRequest } from '../routes.js';
import { readRawBody, sha256Hex } from '../prefixed-wire.js';
import { handleGigachatChat } from './chat.js';
import { handleGigachatEmbeddings } from './embeddings.js';
import { GigachatSimError, sendGigachatError } from './errors.js';
import { handleOauth, requireToken, sendStats } from './oauth.js';

export async function handleGigachat({ request, response, path, usage }: VendorSimRequest): Promise<void> {
  try {
    if (request.method === 'GET' && path === '/__stats') return sendStats(response, usage);
    if (request.method === 'POST' && path === '/api/v2/oauth') return await handleOauth(request, response, usage);
    const chat = path === '/api/v1/chat/completions';
    if (request.method !== 'POST' || (!chat && path !== '/api/v1/embeddings')) throw new GigachatSimError(404, `no route for ${request.method} ${path}`);
    requireToken(request, usage);
    const raw = await readRawBody(request);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new GigachatSimError(400, 'request body is not valid JSON');
    }
    if (chat) return await handleGigachatChat(response, body, sha256Hex(raw));
    return handleGigachatEmbeddings(response, body);
  } catch (error) {
    if (error instanceof GigachatSimError) return sendGigachatError(response, error);
    throw error;
  }
}
