// Yandex Cloud under the simulator's `/yandex` prefix: the Foundation Models completion
// (completion.ts), YandexART's asynchronous generation and its operations (art.ts). A provider
// reaches it with base_url <simulator>/yandex and operations_url <simulator>/yandex. Every
// request needs `Authorization: Api-Key …` or `Bearer …`; errors are Yandex-shaped (errors.ts).
import type { VendorSimRequest } from '../routes.js';
import { readRawBody, sha256Hex } from '../prefixed-wire.js';
import { handleImageGeneration, handleOperation } from './art.js';
import { handleCompletion } from './completion.js';
import { YandexSimError, sendYandexError } from './errors.js';

export async function handleYandex({ request, response, path, usage }: VendorSimRequest): Promise<void> {
  try {
    const authorization = request.headers.authorization ?? '';
    if (!/^(Api-Key|Bearer) \S+/.test(authorization)) throw new YandexSimError(401, 'Unknown api key or iam token');
    const operation = /^\/operations\/([^/]+)$/.exec(path);
    if (operation && request.method === 'GET') return handleOperation(response, usage, decodeURIComponent(operation[1]!));
    if (request.method !== 'POST' || (path !== '/foundationModels/v1/completion' && path !== '/foundationModels/v1/imageGenerationAsync')) {
      throw new YandexSimError(404, `no route for ${request.method} ${path}`);
    }
    const raw = await readRawBody(request);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new YandexSimError(400, 'request body is not valid JSON');
    }
    const seed = sha256Hex(raw);
    if (path === '/foundationModels/v1/completion') return await handleCompletion(response, body, seed);
    return handleImageGeneration(response, usage, body, seed);
  } catch (error) {
    if (error instanceof YandexSimError) return sendYandexError(response, error.status, error.message);
    throw error;
  }
}
