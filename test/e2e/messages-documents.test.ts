// Issue 34 item 17: `document` blocks in /v1/messages (a PDF as base64, plain text) reach the
// upstreams that take documents — Anthropic kinds (the simulator's Anthropic side included) as
// document blocks, OpenAI as a `file` input — and the model reads them (its input grows by
// them); an openai-compatible route is refused with a 422 naming its provider and the block,
// before anything is charged.
import Anthropic from '@anthropic-ai/sdk';
import { assertLedgerInvariants, testOnBackends } from '../helpers/backends.js';
import { startChatGateway } from '../helpers/chat-gateway.js';

/** A one-page PDF, as small as a valid one gets. */
const pdf = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
).toString('base64');

const documents: Anthropic.ContentBlockParam[] = [
  { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf }, title: 'Annual report', context: 'Fiscal year 2024' },
  { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'The sea is blue. '.repeat(40) }, title: 'Notes' },
];

testOnBackends('messages: document blocks reach Anthropic and OpenAI upstreams; an openai-compatible route is refused with a 422', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key, accountId } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const client = new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
  const question = { type: 'text', text: 'Summarize both.' } as const;
  for (const model of ['sim/chat', 'anthropic/chat', 'openai/chat']) {
    const without = await client.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: [question] }] });
    const withDocuments = await client.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: [question, ...documents] }] });
    t.is(withDocuments.stop_reason, 'end_turn', model);
    // The upstream counted the documents: 40 sentences of text alone are well over 100 tokens.
    t.true(withDocuments.usage.input_tokens > without.usage.input_tokens + 100, `${model}: ${withDocuments.usage.input_tokens} vs ${without.usage.input_tokens}`);
  }

  const before = (await gateway.services.ledger.balance(accountId)).balanceUnits;
  const refused = await fetch(`${gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'compat/chat', max_tokens: 64, messages: [{ role: 'user', content: [question, ...documents] }] }),
  });
  t.is(refused.status, 422);
  const body = (await refused.json()) as { detail: { loc: (string | number)[] }[]; error: { type: string; message: string } };
  t.deepEqual(body.detail[0]!.loc, ['body', 'messages', 0, 'content', 1, 'type']);
  t.is(body.error.type, 'invalid_request_error');
  t.is(
    body.error.message,
    'body.messages.0.content.1.type: compat/chat is served by provider "compat" (openai-compatible), which does not take document blocks; send the document\'s text as a text block',
  );
  t.is((await gateway.services.ledger.balance(accountId)).balanceUnits, before, 'a refused request is not charged');

  // Sources the gateway does not carry are refused where they are, not dropped.
  const byUrl = await fetch(`${gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'sim/chat', max_tokens: 64, messages: [{ role: 'user', content: [question, { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } }] }] }),
  });
  t.is(byUrl.status, 422);
  t.deepEqual(((await byUrl.json()) as { detail: { loc: unknown[] }[] }).detail[0]!.loc, ['body', 'messages', 0, 'content', 1, 'source', 'type']);
  await assertLedgerInvariants(t, database.db);
});
