// The SSE bodies of the audio endpoints, in OpenAI's events: transcriptions with `stream: true`
// (`transcript.text.delta` … `transcript.text.done`) and speech with `stream_format: "sse"`
// (`speech.audio.delta` … `speech.audio.done`). The upstream call is made whole (most upstream
// kinds answer these so), then its result is sent as the events streaming clients wait for:
// they receive the same text or bytes as a plain request would. Speech from an upstream that
// streams it (pipeline/speech-stream.ts) sends the delta events of each chunk as it arrives.

/** Audio bytes per `speech.audio.delta` event (base64 grows them by a third). */
const audioChunkBytes = 12 * 1024;

function event(data: Record<string, unknown>): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** Word by word (spaces kept with the word before), then the whole text. */
export function transcriptEvents(text: string, usage: unknown): string {
  let body = '';
  for (const delta of text.match(/\S+\s*|\s+/g) ?? []) body += event({ type: 'transcript.text.delta', delta });
  body += event({ type: 'transcript.text.done', text, ...(usage !== undefined ? { usage } : {}) });
  return body;
}

/** A chunk of audio as `speech.audio.delta` events, at most audioChunkBytes of it apiece. */
export function speechDeltaEvents(audio: Uint8Array): string {
  let body = '';
  for (let at = 0; at < audio.length; at += audioChunkBytes) {
    body += event({ type: 'speech.audio.delta', audio: Buffer.from(audio.subarray(at, at + audioChunkBytes)).toString('base64') });
  }
  return body;
}

export function speechDoneEvent(usage: { input_tokens: number; output_tokens: number }): string {
  return event({ type: 'speech.audio.done', usage: { ...usage, total_tokens: usage.input_tokens + usage.output_tokens } });
}

export function speechEvents(audio: Uint8Array, usage: { input_tokens: number; output_tokens: number }): string {
  return speechDeltaEvents(audio) + speechDoneEvent(usage);
}

/** The event that ends a speech stream cut by a failure after its first audio (OpenAI's error event). */
export function speechErrorEvent(error: Record<string, unknown>): string {
  return `event: error\ndata: ${JSON.stringify({ type: 'error', ...error })}\n\n`;
}
