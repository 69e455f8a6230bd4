// The Gemini simulator, under the `gemini` prefix (a provider reaches it with
// `base_url: <simulator>/gemini`):
//   POST /v1beta/models/{model}:streamGenerateContent (?alt=sse: SSE; else a JSON array),
//        :generateContent (images too, with responseModalities IMAGE), :countTokens,
//        :batchEmbedContents, :embedContent, :predict (Imagen), :predictLongRunning (Veo)
//   GET  /v1beta/models/{model}/operations/{id}, /v1beta/files/{id}:download   (x-goog-api-key or ?key=)
//   POST /v1/projects/{p}/locations/{l}/publishers/google/models/{model}:…   (Vertex: Bearer token from /token)
//   POST /token                 the OAuth token endpoint of simulated service accounts (oauth.ts)
//   GET  /__sim/stats           {tokenExchanges}: how many tokens /token issued (tests)
// Errors in Google's shape (errors.ts). The answer comes from the shared planner (script.ts),
// so text, tool calls, structured output, reasoning, stop sequences, faults and usage behave as
// on the OpenAI and Anthropic endpoints.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SimError } from '../../errors.js';
import { faultError } from '../../errors.js';
import { parseFaults } from '../../faults.js';
import { isValidThinkingSignature, defaultSigningSecret } from '../../signatures.js';
import { planAnswer, promptFaults } from '../../script.js';
import { ClientWatch, writeStream } from '../../sse-writer.js';
import { readRawBody } from '../prefixed-wire.js';
import type { VendorSimRequest } from '../routes.js';
import { batchEmbed, embedSingle } from './embeddings.js';
import { sendGoogleError } from './errors.js';
import { contentImage, imageOutputTokens, predictImages } from './images.js';
import { exchangeToken, oauthStateOf } from './oauth.js';
import { cachedContentTokens } from './prefix.js';
import { pollVideo, startVideo, videoFile } from './videos.js';
import { renderChunks, renderResponse } from './render.js';
import { parseGeminiRequest, type ParsedGeminiRequest } from './request.js';

export const geminiPrefix = 'gemini';
const maxBodyBytes = 20 * 1024 * 1024;
/** Google's documented value that stands for a signature a call never had. */
const placeholderSignatures = new Set(['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go']);

const apiKeyPath = /^\/(v1beta|v1|v1alpha)\/models\/([^/:]+):([A-Za-z]+)$/;
const vertexPath = /^\/(v1|v1beta1)\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/google\/models\/([^/:]+):([A-Za-z]+)$/;

export async function handleGemini(context: VendorSimRequest): Promise<void> {
  const { request, response, path } = context;
  try {
    if (path === '/__sim/stats' && request.method === 'GET') return sendBody(context, 200, { tokenExchanges: oauthStateOf(context.cache).exchanges });
    if (path === '/token' && request.method === 'POST') {
      const form = (await readBody(request)).toString('utf8');
      const answer = exchangeToken(oauthStateOf(context.cache), form, `${context.origin}/${geminiPrefix}/token`, Math.floor(Date.now() / 1000));
      return sendBody(context, answer.status, answer.body);
    }
    if (request.method === 'GET') {
      const operation = /^\/(v1beta|v1)\/models\/([^/:]+)\/operations\/([A-Za-z0-9_-]+)$/.exec(path);
      const file = /^\/(v1beta|v1)\/files\/([A-Za-z0-9_-]+):download$/.exec(path);
      if (operation || file) {
        checkApiKey(context);
        if (operation) return sendBody(context, 200, pollVideo(context.cache, decodeURIComponent(operation[2]!), operation[3]!, context.origin));
        const bytes = videoFile(context.cache, file![2]!);
        response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(bytes.length) });
        return void response.end(bytes);
      }
    }
    const apiKey = apiKeyPath.exec(path);
    const vertex = apiKey ? undefined : vertexPath.exec(path);
    if (!apiKey && !vertex) throw new SimError(404, `The requested URL ${path} was not found on this server.`);
    if (request.method !== 'POST') throw new SimError(405, `${path} accepts POST only`);
    if (apiKey) checkApiKey(context);
    else checkBearer(context);
    const model = decodeURIComponent(apiKey ? apiKey[2]! : vertex![4]!);
    const method = apiKey ? apiKey[3]! : vertex![5]!;
    const raw = await readBody(request);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new SimError(400, 'Invalid JSON payload received.');
    }
    const seed = createHash('sha256').update(raw).digest('hex');
    switch (method) {
      case 'generateContent':
        return await generate(context, model, body, seed, 'whole');
      case 'streamGenerateContent':
        return await generate(context, model, body, seed, context.query.get('alt') === 'sse' ? 'sse' : 'array');
      case 'countTokens':
        return countTokensOf(context, model, body, seed);
      case 'predictLongRunning': {
        const started = startVideo(context.cache, model, body, seed);
        const faults = parseFaults(started.prompt);
        if (faults.status !== undefined) throw faultError(faults.status, faults.retryAfterSeconds);
        return sendBody(context, 200, { name: started.name });
      }
      case 'predict': {
        const answer = predictImages(model, body);
        const faults = parseFaults(answer.prompt);
        if (faults.status !== undefined) throw faultError(faults.status, faults.retryAfterSeconds);
        return sendBody(context, 200, answer.body);
      }
      case 'batchEmbedContents':
      case 'embedContent':
        return await embed(context, model, body, method, vertex !== null && vertex !== undefined);
      default:
        throw new SimError(404, `Method ${method} is not found for models/${model}.`);
    }
  } catch (caught) {
    sendGoogleError(response, caught);
  }
}

function checkApiKey({ request, query }: VendorSimRequest): void {
  const key = request.headers['x-goog-api-key'] ?? query.get('key');
  if (!key) throw new SimError(403, 'Method doesn\'t allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.');
}

function checkBearer({ request, cache }: VendorSimRequest): void {
  const header = request.headers.authorization ?? '';
  const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
  if (!oauthStateOf(cache).issued.has(token)) {
    throw new SimError(401, 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.');
  }
}

/** Gemini 3: the first function call of every model turn carries the signature we issued (or Google's placeholder). */
function checkSignatures(parsed: ParsedGeminiRequest): void {
  if (!parsed.checksSignatures) return;
  parsed.modelCalls.forEach((calls, turn) => {
    const first = calls[0];
    if (!first) return;
    const signature = first.signature;
    if (signature !== undefined && (placeholderSignatures.has(signature) || isValidThinkingSignature(defaultSigningSecret, `gemini-call:${first.name}:${first.args}`, signature))) return;
    throw new SimError(400, `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`${first.name}\` , position ${turn}.`);
  });
}

async function generate(context: VendorSimRequest, model: string, body: unknown, seed: string, mode: 'whole' | 'sse' | 'array'): Promise<void> {
  const parsed = parseGeminiRequest(body, model, seed);
  checkSignatures(parsed);
  const faults = promptFaults(parsed.prompt);
  const config = (body as { generationConfig?: { responseModalities?: unknown } }).generationConfig;
  if (Array.isArray(config?.responseModalities) && config.responseModalities.includes('IMAGE') && mode === 'whole') {
    if (faults.status !== undefined) throw faultError(faults.status, faults.retryAfterSeconds);
    context.usage.record('completions', model, { inputTokens: parsed.promptTokens, cachedInputTokens: 0, outputTokens: imageOutputTokens });
    return sendBody(context, 200, contentImage(model, parsed.prompt.userText, parsed.promptTokens, config as Record<string, unknown>));
  }
  const watch = new ClientWatch(context.response);
  if (faults.ttfbMs > 0) await watch.sleep(faults.ttfbMs);
  if (watch.closed) return;
  if (faults.status !== undefined) throw faultError(faults.status, faults.retryAfterSeconds);
  const plan = planAnswer(parsed.prompt, faults, defaultSigningSecret);
  const cached = cachedContentTokens(context.cache, parsed);
  context.usage.record('completions', model, { inputTokens: parsed.promptTokens, cachedInputTokens: cached, outputTokens: plan.outputTokens });
  if (mode === 'whole') {
    if (faults.drop) return void context.response.socket?.destroy();
    if (faults.failMid) throw faultError(500);
    return sendBody(context, 200, renderResponse(parsed, plan, cached, seed, defaultSigningSecret, !faults.noUsage));
  }
  const { chunks, faultAt } = renderChunks(parsed, plan, cached, seed, defaultSigningSecret, !faults.noUsage);
  if (mode === 'array') {
    if (faults.drop) return void context.response.socket?.destroy();
    return sendBody(context, 200, chunks);
  }
  const frames = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`);
  const errorFrame = `data: ${JSON.stringify({ error: { code: 503, message: 'The model is overloaded. Please try again later. (simulated failure in the middle of the stream)', status: 'UNAVAILABLE' } })}\r\n\r\n`;
  const fault = faults.drop ? 'drop' : faults.failMid ? 'fail-mid' : null;
  await writeStream(context.response, watch, { frames, faultAt, errorFrame }, { delayMs: faults.delayMs, fault }, {});
}

/** countTokens: the prompt's tokens ({contents} or {generateContentRequest}); no cache effect. */
function countTokensOf(context: VendorSimRequest, model: string, body: unknown, seed: string): void {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const inner = record.generateContentRequest ?? record;
  const parsed = parseGeminiRequest(inner, model, seed);
  sendBody(context, 200, { totalTokens: parsed.promptTokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: parsed.promptTokens }] });
}

async function embed(context: VendorSimRequest, model: string, body: unknown, method: 'batchEmbedContents' | 'embedContent', vertex: boolean): Promise<void> {
  const answer = method === 'batchEmbedContents' ? batchEmbed(model, body, vertex) : embedSingle(model, body, vertex);
  const faults = parseFaults(answer.text);
  if (faults.ttfbMs > 0) await new ClientWatch(context.response).sleep(faults.ttfbMs);
  if (faults.status !== undefined) throw faultError(faults.status, faults.retryAfterSeconds);
  context.usage.record('embeddings', model, { inputTokens: answer.tokens, cachedInputTokens: 0, outputTokens: 0 });
  sendBody(context, 200, answer.body);
}

function sendBody({ response }: VendorSimRequest, status: number, body: unknown): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': String(Buffer.byteLength(text)) });
  response.end(text);
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return readRawBody(request, maxBodyBytes, (max) => new SimError(413, `Request payload size exceeds the limit: ${max} bytes.`));
}


