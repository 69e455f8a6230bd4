// Shared by the simulator tests: a simulator on a free port, closed after the test, with the
// official SDKs pointed at it (no retries, so a simulated 429/5xx surfaces at once), and a
// raw SSE reader for the faults the SDK helpers would not let us see.
import Anthropic from '@anthropic-ai/sdk';
import type { ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { startSimulator } from '../../src/sim/server.js';

export interface TestSimulator {
  readonly url: string;
  readonly openai: OpenAI;
  readonly anthropic: Anthropic;
}

export async function startTestSimulator(t: ExecutionContext, signingSecret?: string): Promise<TestSimulator> {
  const simulator = await startSimulator({ host: '127.0.0.1', port: 0, signingSecret });
  t.teardown(() => simulator.close());
  return {
    url: simulator.url,
    openai: new OpenAI({ baseURL: `${simulator.url}/v1`, apiKey: 'sk-anything', maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: simulator.url, apiKey: 'sk-ant-anything', maxRetries: 0 }),
  };
}

export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

/** Parses a whole SSE body (as the SDKs do: blank line ends an event, `event:`/`data:` fields). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    if (block.trim().length === 0) continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    events.push(event === undefined ? { data: data.join('\n') } : { event, data: data.join('\n') });
  }
  return events;
}

/** POSTs JSON and returns status, headers and the whole body text (or the error if the body broke). */
export async function postRaw(url: string, body: unknown): Promise<{ status: number; headers: Headers; text: string; bodyError?: Error }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const decoder = new TextDecoder();
  let text = '';
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
  } catch (error) {
    return { status: response.status, headers: response.headers, text, bodyError: error as Error };
  }
  return { status: response.status, headers: response.headers, text };
}
