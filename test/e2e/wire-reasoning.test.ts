// Issue 14 items 4 and 5: the spec's reasoning efforts (`off` … `max`, with `none` as an alias;
// `xhigh` is a level of its own since issue 34) through both OpenAI dialects, the catalog in the spec's names, and reasoning
// tokens reported in each dialect's usage details, over every upstream kind.
import OpenAI from 'openai';
import { testOnBackends } from '../helpers/backends.js';
import { startChatGateway, testPrices, upstreamKinds } from '../helpers/chat-gateway.js';

testOnBackends('reasoning effort: off, the spec names and the aliases are accepted in chat and responses; the catalog lists spec names', async (t, database) => {
  const gateway = await startChatGateway(t, database, {
    models: [
      {
        id: 't/top',
        name: 'top',
        type: 'text',
        route: { provider: 'openai', model: 'reasoning' },
        pricing: testPrices,
        // The config may use either name; the catalog shows the spec's.
        capabilities: { reasoning_efforts: ['none', 'low', 'high', 'xhigh'], max_output_tokens: 32768 },
      },
    ],
  });
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  for (const kind of upstreamKinds) {
    const model = `${kind}/reasoning`;
    const off = await openai.chat.completions.create({ model, reasoning_effort: 'off' as never, messages: [{ role: 'user', content: 'hi' }] });
    t.is(off.usage!.completion_tokens_details!.reasoning_tokens, 0, `${model} off`);
    const none = await openai.chat.completions.create({ model, reasoning_effort: 'none', messages: [{ role: 'user', content: 'hi' }] });
    t.is(none.choices[0]!.finish_reason, 'stop');
    const responseOff = await openai.responses.create({ model, reasoning: { effort: 'off' as never }, input: 'hi' });
    t.is(responseOff.status, 'completed', `${model} responses off`);
  }
  const top = await openai.chat.completions.create({ model: 't/top', reasoning_effort: 'xhigh', messages: [{ role: 'user', content: 'hi' }] });
  // How long the simulator thinks is its own choice; that the effort reached it is what counts here.
  t.true(top.usage!.completion_tokens_details!.reasoning_tokens! > 0);
  const alias = await openai.responses.create({ model: 't/top', reasoning: { effort: 'xhigh' }, input: 'hi' });
  t.is(alias.status, 'completed');
  const listed = await openai.models.retrieve('t/top');
  t.deepEqual((listed as any).capabilities.reasoning_efforts, ['off', 'low', 'high', 'xhigh']);
  // `max` on a model whose list stops at `high` is refused, naming the field and the spec's names.
  const refused = (await t.throwsAsync(openai.chat.completions.create({ model: 'sim/reasoning', reasoning_effort: 'max' as never, messages: [{ role: 'user', content: 'hi' }] }))) as any;
  t.is(refused.status, 422);
  t.regex(refused.message, /reasoning_effort "max" is not supported by sim\/reasoning: use one of 'minimal', 'low', 'medium', 'high', 'off'/);
});

testOnBackends('reasoning tokens are reported: chat completion_tokens_details and responses output_tokens_details, streamed and not, over every upstream kind', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 10_000_000n });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  for (const kind of upstreamKinds) {
    const model = `${kind}/reasoning`;
    const chat = await openai.chat.completions.create({ model, reasoning_effort: 'high', messages: [{ role: 'user', content: 'Why is the sky blue?' }] });
    const chatReasoning = chat.usage!.completion_tokens_details!.reasoning_tokens!;
    // The simulator's reasoning length is its own; reported, and a part of the completion, is the claim.
    t.true(chatReasoning > 0 && chatReasoning < chat.usage!.completion_tokens, `${model} chat: ${chatReasoning}`);
    const streamed = await openai.chat.completions
      .stream({ model, reasoning_effort: 'high', stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Why is the sky blue?' }] })
      .finalChatCompletion();
    t.is(streamed.usage!.completion_tokens_details!.reasoning_tokens, chatReasoning, `${model} streamed chat`);
    const response = await openai.responses.create({ model, reasoning: { effort: 'high' }, input: 'Why is the sky blue?' });
    t.is(response.usage!.output_tokens_details.reasoning_tokens, chatReasoning, `${model} responses`);
    const streamedResponse = await openai.responses.stream({ model, reasoning: { effort: 'high' }, input: 'Why is the sky blue?' }).finalResponse();
    t.is(streamedResponse.usage!.output_tokens_details.reasoning_tokens, chatReasoning, `${model} streamed responses`);
  }
});

