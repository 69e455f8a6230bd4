// The fourth client dialect: Google's own @google/genai SDK, with only its base URL and key
// changed, against the gateway routed to an OpenAI and to an Anthropic upstream (the simulator).
import { GoogleGenAI, ApiError, FunctionCallingConfigMode, Type } from '@google/genai';
import { testOnBackends } from '../helpers/backends.js';
import { expectedChargeUnits, startChatGateway } from '../helpers/chat-gateway.js';

const genai = (url: string, apiKey: string) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: url } });

testOnBackends('smoke', async (t, database) => {
  const gateway = await startChatGateway(t, database);
  const { key } = await gateway.newClient({ balanceUnits: 1_000_000n });
  const client = genai(gateway.url, key);
  const answer = await client.models.generateContent({ model: 'openai/chat', contents: 'Hello there' });
  console.log(JSON.stringify(answer));
  const stream = await client.models.generateContentStream({ model: 'anthropic/reasoning', contents: 'Hello there', config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 } } });
  for await (const chunk of stream) console.log(JSON.stringify(chunk));
  t.pass();
});
