// OpenAI audio (wire-formats.md §4). Speech: JSON to `${baseUrl}/audio/speech`, raw audio bytes
// back with an audio content-type. Transcriptions: multipart to `${baseUrl}/audio/transcriptions`;
// the answer is JSON for json/verbose_json and text for text/srt/vtt, and goes back to the
// client as the upstream gave it.
import { type SpeechRequest, type SpeechResult, speechMediaTypes, type TranscriptionRequest, type TranscriptionResult } from '../../model/media.js';
import { isObject, stringOf } from '../shared/json.js';
import type { MediaOperation } from '../media-types.js';
import { appendFields, appendFile, bearer, defined, headerOf, invalidResponse, joinUrl, jsonOf, mediaTypeOf, textOf } from '../shared/wire.js';

export const speechOperation: MediaOperation<SpeechRequest, SpeechResult> = {
  build: (request, target) => ({
    url: joinUrl(target.baseUrl, '/audio/speech'),
    method: 'POST',
    headers: { ...bearer(target.apiKey), accept: 'application/octet-stream' },
    body: {
      json: defined({
        model: target.model,
        input: request.input,
        voice: request.voice,
        response_format: request.format,
        speed: request.speed,
        instructions: request.instructions,
      }),
    },
  }),
  parse: (response, request) => {
    const type = mediaTypeOf(response);
    // A JSON or text 2xx is not audio (an error some proxies send with 200), whatever its bytes.
    if (type && (type.includes('json') || type.startsWith('text/'))) {
      throw invalidResponse(`the upstream answered speech with ${type} instead of audio: ${textOf(response).slice(0, 200)}`);
    }
    if (response.body.length === 0) throw invalidResponse('the upstream answered speech with no audio');
    const mediaType = type && type !== 'application/octet-stream' ? type : speechMediaTypes[request.format];
    return { audio: response.body, mediaType };
  },
};

export const transcriptionOperation: MediaOperation<TranscriptionRequest, TranscriptionResult> = {
  build: (request, target) => {
    const form = new FormData();
    appendFile(form, 'file', request.file);
    appendFields(form, {
      model: target.model,
      language: request.language,
      prompt: request.prompt,
      response_format: request.responseFormat,
      temperature: request.temperature,
    });
    return { url: joinUrl(target.baseUrl, '/audio/transcriptions'), method: 'POST', headers: bearer(target.apiKey), body: { form } };
  },
  parse: (response, request) => {
    const contentType = headerOf(response, 'content-type');
    if (request.responseFormat === 'json' || request.responseFormat === 'verbose_json') {
      const body = jsonOf(response, 'transcription');
      if (!isObject(body)) throw invalidResponse('the upstream\'s transcription answer is not a JSON object');
      return { body, text: stringOf(body.text) ?? '', contentType: contentType ?? 'application/json' };
    }
    const body = textOf(response);
    const text = request.responseFormat === 'text' ? body.trim() : subtitleText(body);
    return { body, text, contentType: contentType ?? 'text/plain' };
  },
};

/**
 * The spoken text of SRT or WebVTT subtitles (for logs and history): every line that is not
 * the WEBVTT header, a cue number, a timing line or a NOTE block, joined with spaces.
 */
export function subtitleText(subtitles: string): string {
  const lines: string[] = [];
  for (const block of subtitles.replace(/\r\n?/g, '\n').split(/\n{2,}/)) {
    const blockLines = block.split('\n').map((line) => line.trim()).filter(Boolean);
    if (blockLines.length === 0 || /^(WEBVTT|NOTE|STYLE|REGION)\b/.test(blockLines[0]!)) continue;
    const timing = blockLines.findIndex((line) => line.includes('-->'));
    lines.push(...blockLines.slice(timing + 1));
  }
  return lines.join(' ');
}
