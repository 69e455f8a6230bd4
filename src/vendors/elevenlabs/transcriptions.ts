// ElevenLabs speech to text (Scribe): multipart POST `${baseUrl}/v1/speech-to-text` with
// `model_id`, `file`, `language_code` and `timestamps_granularity: word`; the answer is
// `{language_code, language_probability, text, words: [{text, start, end, type}]}`. It is given
// back in the response_format asked: json `{text}`, text, verbose_json (language, duration,
// words and sentence segments, as OpenAI's verbose_json), srt and vtt (a cue per sentence).
// Scribe takes no prompt: a request with one is refused before anything is sent.
import type { TranscriptionRequest, TranscriptionResult } from '../../model/media.js';
import { arrayOf, isObject, stringOf } from '../shared/json.js';
import { appendFields, appendFile, invalidResponse, joinUrl, jsonOf } from '../shared/wire.js';
import { UpstreamError } from '../types.js';
import type { MediaOperation } from '../media-types.js';

export interface TimedWord {
  readonly word: string;
  readonly start: number;
  readonly end: number;
}

export interface Segment {
  readonly id: number;
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** The spoken words with their times (spacing and audio events left out). */
export function timedWords(words: readonly unknown[]): TimedWord[] {
  return words.filter(isObject).flatMap((entry) => {
    const text = stringOf(entry.text);
    if (entry.type !== undefined && entry.type !== 'word') return [];
    if (!text || typeof entry.start !== 'number' || typeof entry.end !== 'number') return [];
    return [{ word: text, start: entry.start, end: entry.end }];
  });
}

/** Words grouped into sentences (a word ending in . ! or ? closes one). */
export function sentenceSegments(words: readonly TimedWord[], text: string): Segment[] {
  const segments: Segment[] = [];
  let current: TimedWord[] = [];
  const close = () => {
    if (current.length === 0) return;
    segments.push({ id: segments.length, start: current[0]!.start, end: current[current.length - 1]!.end, text: current.map((word) => word.word).join(' ') });
    current = [];
  };
  for (const word of words) {
    current.push(word);
    if (/[.!?…]["')\]]*$/.test(word.word)) close();
  }
  close();
  if (segments.length === 0 && text.trim() !== '') segments.push({ id: 0, start: 0, end: 0, text: text.trim() });
  return segments;
}

function timestamp(seconds: number, separator: ',' | '.'): string {
  const millis = Math.round(seconds * 1000);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(Math.floor(millis / 3_600_000))}:${pad(Math.floor(millis / 60_000) % 60)}:${pad(Math.floor(millis / 1000) % 60)}${separator}${pad(millis % 1000, 3)}`;
}

export function subtitles(segments: readonly Segment[], format: 'srt' | 'vtt'): string {
  const separator = format === 'srt' ? ',' : '.';
  const cues = segments.map((segment, index) => {
    const timing = `${timestamp(segment.start, separator)} --> ${timestamp(segment.end, separator)}`;
    return format === 'srt' ? `${index + 1}\n${timing}\n${segment.text}\n` : `${timing}\n${segment.text}\n`;
  });
  return format === 'srt' ? cues.join('\n') : `WEBVTT\n\n${cues.join('\n')}`;
}

export const elevenLabsTranscriptionOperation: MediaOperation<TranscriptionRequest, TranscriptionResult> = {
  build: (request, target) => {
    if (request.prompt !== undefined) throw new UpstreamError('ElevenLabs Scribe takes no prompt', 400, false, 'unsupported_prompt');
    const form = new FormData();
    appendFields(form, { model_id: target.model, language_code: request.language, temperature: request.temperature, timestamps_granularity: 'word' });
    appendFile(form, 'file', request.file);
    return {
      url: joinUrl(target.baseUrl, '/v1/speech-to-text'),
      method: 'POST',
      headers: { ...(target.apiKey ? { 'xi-api-key': target.apiKey } : {}), accept: 'application/json' },
      body: { form },
    };
  },
  parse: (response, request) => {
    const body = jsonOf(response, 'transcription');
    if (!isObject(body) || typeof body.text !== 'string') throw invalidResponse('the upstream\'s transcription answer has no text');
    const text = body.text;
    const words = timedWords(arrayOf(body.words));
    switch (request.responseFormat) {
      case 'json':
        return { body: { text }, text, contentType: 'application/json' };
      case 'text':
        return { body: `${text}\n`, text, contentType: 'text/plain; charset=utf-8' };
      case 'verbose_json': {
        const duration = words.length > 0 ? words[words.length - 1]!.end : 0;
        const segments = sentenceSegments(words, text);
        return { body: { task: 'transcribe', language: stringOf(body.language_code) ?? request.language ?? 'unknown', duration, text, words, segments }, text, contentType: 'application/json' };
      }
      case 'srt':
      case 'vtt':
        return { body: subtitles(sentenceSegments(words, text), request.responseFormat), text, contentType: request.responseFormat === 'srt' ? 'text/plain; charset=utf-8' : 'text/vtt; charset=utf-8' };
    }
  },
};
