// The simulator's Gemini wire (/gemini), driven by Google's own SDK (@google/genai) where it
// can be — so the shapes are the ones Google's client reads — and by raw HTTP for the rest:
// Google's error bodies, the Vertex paths and the OAuth token endpoint.
import { createSign, generateKeyPairSync } from 'node:crypto';
import test from 'ava';
import { ApiError, GoogleGenAI, type Content } from '@google/genai';
import { startSimulator } from '../../src/sim/server.js';
import { countTokens } from '../../src/sim/tokens.js';

async function start(t: import('ava').ExecutionContext) {
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
  t.teardown(() => simulator.close());
  const ai = new GoogleGenAI({ apiKey: 'AIza-sim', httpOptions: { baseUrl: `${simulator.url}/gemini` } });
  return { url: simulator.url, ai };
}

test('generateContent: text, thoughts when asked, Google usage fields; the stream says the same', async (t) => {
  const { ai } = await start(t);
  const config = { thinkingConfig: { thinkingBudget: 30, includeThoughts: true } };
  const whole = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Why is the sky blue?', config });
  t.regex(whole.text!, /^Simulated answer to "Why is the sky blue\?": /);
  const parts = whole.candidates![0]!.content!.parts!;
  t.true(parts[0]!.thought);
  t.truthy(parts.at(-1)!.thoughtSignature, 'a thinking model signs its answer');
  t.is(whole.candidates![0]!.finishReason as string, 'STOP');
  const prompt = 3 + countTokens('Why is the sky blue?');
  t.deepEqual(whole.usageMetadata, { promptTokenCount: prompt, candidatesTokenCount: 20, thoughtsTokenCount: 30, totalTokenCount: prompt + 50, promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }] });
  t.is(whole.modelVersion, 'gemini-2.5-flash');

  let text = '';
  let last: Awaited<ReturnType<typeof ai.models.generateContent>> | undefined;
  for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Why is the sky blue?', config })) {
    text += chunk.candidates?.[0]?.content?.parts?.filter((part) => !part.thought).map((part) => part.text ?? '').join('') ?? '';
    last = chunk;
  }
  t.is(text, whole.text!);
  t.deepEqual(last!.usageMetadata, whole.usageMetadata);

  const plain = await ai.models.generateContent({ model: 'gemini-2.0-flash', contents: 'Hi', config: { maxOutputTokens: 5, stopSequences: ['never'] } });
  t.is(plain.candidates![0]!.finishReason as string, 'MAX_TOKENS');
  t.is(plain.usageMetadata!.thoughtsTokenCount, undefined);
  t.is((await ai.models.countTokens({ model: 'gemini-2.0-flash', contents: 'Hi' })).totalTokens, plain.usageMetadata!.promptTokenCount);
});

test('function calls: Gemini 3 signs the first call and refuses it back without a valid signature', async (t) => {
  const { ai } = await start(t);
  const tools = [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }] }];
  const model = 'gemini-3-pro-preview';
  const question: Content = { role: 'user', parts: [{ text: 'Weather in Oslo?' }] };
  const answer = await ai.models.generateContent({ model, contents: [question], config: { tools } });
  const call = answer.candidates![0]!.content!.parts!.find((part) => part.functionCall)!;
  t.deepEqual(call.functionCall, { name: 'get_weather', args: { city: 'sim' } });
  t.truthy(call.thoughtSignature);
  const followUp = (signature: string | undefined) =>
    ai.models.generateContent({
      model,
      contents: [question, { role: 'model', parts: [{ functionCall: call.functionCall, ...(signature ? { thoughtSignature: signature } : {}) }] }, { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: '-3C' } } }] }],
      config: { tools },
    });
  t.regex((await followUp(call.thoughtSignature)).text!, /^Tool results: -3C\. /);
  t.regex((await followUp('skip_thought_signature_validator')).text!, /^Tool results: -3C\. /);
  const refused = await t.throwsAsync(followUp(undefined), { instanceOf: ApiError });
  t.is(refused.status, 400);
  t.regex(refused.message, /thought_signature/);
  const forced = await ai.models.generateContent({ model: 'gemini-2.0-flash', contents: 'Call it', config: { tools, toolConfig: { functionCallingConfig: { mode: 'ANY' as never, allowedFunctionNames: ['get_weather'] } } } });
  t.is(forced.functionCalls?.[0]?.name, 'get_weather');
});

test('implicit caching: a repeated prefix of 64 tokens or more is reported as cachedContentTokenCount', async (t) => {
  const { ai } = await start(t);
  const systemInstruction = 'You answer with great care and many words. '.repeat(10);
  const contents = (last: string): Content[] => [
    { role: 'user', parts: [{ text: 'first' }] },
    { role: 'model', parts: [{ text: 'ok' }] },
    { role: 'user', parts: [{ text: last }] },
  ];
  const first = await ai.models.generateContent({ model: 'gemini-2.5-flash-lite', contents: contents('one'), config: { systemInstruction } });
  t.is(first.usageMetadata!.cachedContentTokenCount, undefined);
  const second = await ai.models.generateContent({ model: 'gemini-2.5-flash-lite', contents: contents('two'), config: { systemInstruction } });
  const prefix = 3 + countTokens(systemInstruction) + 3 + countTokens('first') + 3 + countTokens('ok');
  t.is(second.usageMetadata!.cachedContentTokenCount, prefix);
});

test('search grounding: the google_search tool gives groundingMetadata with byte offsets', async (t) => {
  const { ai } = await start(t);
  const answer = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Who won?', config: { tools: [{ googleSearch: {} }], thinkingConfig: { thinkingBudget: 0 } } });
  const grounding = answer.candidates![0]!.groundingMetadata!;
  t.deepEqual(grounding.groundingChunks, [
    { web: { uri: 'https://example.com/sim/who-won-1', title: 'Simulated source 1: Who won?' } },
    { web: { uri: 'https://example.com/sim/who-won-2', title: 'Simulated source 2: Who won?' } },
  ]);
  const segment = grounding.groundingSupports![0]!.segment!;
  t.is(segment.text, 'Simulated answer to "Who won?":');
  t.is(answer.text!.slice(0, segment.endIndex), segment.text!);
});

test('embeddings: batchEmbedContents with outputDimensionality; no usage on the Gemini API', async (t) => {
  const { ai, url } = await start(t);
  const answer = await ai.models.embedContent({ model: 'gemini-embedding-001', contents: ['one', 'two'], config: { outputDimensionality: 16 } });
  t.is(answer.embeddings!.length, 2);
  t.is(answer.embeddings![0]!.values!.length, 16);
  t.notDeepEqual(answer.embeddings![0]!.values, answer.embeddings![1]!.values);
  const raw = await fetch(`${url}/gemini/v1beta/models/gemini-embedding-001:batchEmbedContents`, {
    method: 'POST',
    headers: { 'x-goog-api-key': 'k', 'content-type': 'application/json' },
    body: JSON.stringify({ requests: [{ model: 'models/gemini-embedding-001', content: { parts: [{ text: 'x' }] } }] }),
  });
  const body = (await raw.json()) as { embeddings: { values: number[] }[]; usageMetadata?: unknown };
  t.is(body.embeddings[0]!.values.length, 3072);
  t.is(body.usageMetadata, undefined);
});

test('errors in Google\'s shape: 429 with RetryInfo and retry-after, a missing key, an unknown path, bad contents', async (t) => {
  const { url } = await start(t);
  const post = (path: string, body: unknown, headers: Record<string, string> = { 'x-goog-api-key': 'k' }) =>
    fetch(`${url}/gemini${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const limited = await post('/v1beta/models/gemini-2.5-flash:generateContent', { contents: [{ role: 'user', parts: [{ text: 'x [[sim:status=429]] [[sim:retry-after=7]]' }] }] });
  t.is(limited.status, 429);
  t.is(limited.headers.get('retry-after'), '7');
  const body = (await limited.json()) as { error: { code: number; status: string; details: { '@type': string; retryDelay?: string }[] } };
  t.like(body.error, { code: 429, status: 'RESOURCE_EXHAUSTED' });
  t.is(body.error.details.find((detail) => detail['@type'].endsWith('RetryInfo'))!.retryDelay, '7s');
  const anonymous = await post('/v1beta/models/gemini-2.5-flash:generateContent', { contents: [{ parts: [{ text: 'x' }] }] }, {});
  t.is(anonymous.status, 403);
  t.is(((await anonymous.json()) as { error: { status: string } }).error.status, 'PERMISSION_DENIED');
  const unknown = await post('/v1beta/nothing', {});
  t.is(unknown.status, 404);
  t.is(((await unknown.json()) as { error: { status: string } }).error.status, 'NOT_FOUND');
  const empty = await post('/v1beta/models/gemini-2.5-flash:generateContent', { contents: [] });
  t.like(((await empty.json()) as { error: object }).error, { code: 400, status: 'INVALID_ARGUMENT' });
  const unanswered = await post('/v1beta/models/gemini-2.5-flash:generateContent', {
    contents: [{ role: 'user', parts: [{ text: 'x' }] }, { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] }, { role: 'user', parts: [{ text: 'y' }] }],
  });
  t.is(unanswered.status, 400);
});

test('Vertex: the token endpoint checks the JWT claims; the publisher path takes only its tokens', async (t) => {
  const { url } = await start(t);
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwt = (claims: Record<string, unknown>) => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const signingInput = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode(claims)}`;
    return `${signingInput}.${createSign('RSA-SHA256').update(signingInput).sign(privateKey).toString('base64url')}`;
  };
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: 'sa@p.iam.gserviceaccount.com', sub: 'sa@p.iam.gserviceaccount.com', aud: `${url}/gemini/token`, scope: 'https://www.googleapis.com/auth/cloud-platform', iat: now, exp: now + 3600 };
  const exchange = (assertion: string) =>
    fetch(`${url}/gemini/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }) });
  const wrongAudience = await exchange(jwt({ ...claims, aud: 'https://oauth2.googleapis.com/token' }));
  t.is(wrongAudience.status, 400);
  t.is(((await wrongAudience.json()) as { error: string }).error, 'invalid_grant');
  const granted = await exchange(jwt(claims));
  t.is(granted.status, 200);
  const token = (await granted.json()) as { access_token: string; expires_in: number; token_type: string };
  t.like(token, { expires_in: 3599, token_type: 'Bearer' });
  const path = `${url}/gemini/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent`;
  const generate = (authorization: string) => fetch(path, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }) });
  t.is((await generate('Bearer ya29.forged')).status, 401);
  const answered = await generate(`Bearer ${token.access_token}`);
  t.is(answered.status, 200);
  t.is(((await (await fetch(`${url}/gemini/__sim/stats`)).json()) as { tokenExchanges: number }).tokenExchanges, 1);
});

test('images: Imagen generateImages and a Gemini image model answer PNGs of the asked ratio', async (t) => {
  const { ai, url } = await start(t);
  // The SDK sends Imagen only to Vertex now (Google retired it from the Gemini API): raw HTTP.
  const response = await fetch(`${url}/gemini/v1beta/models/imagen-4.0-generate-001:predict`, {
    method: 'POST',
    headers: { 'x-goog-api-key': 'k', 'content-type': 'application/json' },
    body: JSON.stringify({ instances: [{ prompt: 'A fox' }], parameters: { sampleCount: 2, aspectRatio: '16:9' } }),
  });
  const imagen = (await response.json()) as { predictions: { bytesBase64Encoded: string; mimeType: string }[] };
  t.is(imagen.predictions.length, 2);
  const bytes = Buffer.from(imagen.predictions[0]!.bytesBase64Encoded, 'base64');
  t.is(bytes.readUInt32BE(16), 1360);
  t.is(bytes.readUInt32BE(20), 768);
  const flash = await ai.models.generateContent({ model: 'gemini-2.5-flash-image', contents: 'A fox', config: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '1:1' } } });
  const part = flash.candidates![0]!.content!.parts![0]!;
  t.is(part.inlineData!.mimeType, 'image/png');
  t.is(flash.usageMetadata!.candidatesTokenCount, 1290);
});
