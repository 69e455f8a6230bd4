// The internal representation of synchronous media operations (images, speech,
// transcription, embeddings, decisions): what a route decodes into, what a media adapter
// sends upstream, what it returns. Imports nothing.

/** A file the client uploaded (image references, audio to transcribe), already read and size-checked. */
export interface InputFile {
  readonly data: Uint8Array;
  /** "image/png", "audio/mpeg"…, as detected from the bytes when possible. */
  readonly mediaType: string;
  readonly filename: string;
}

export interface ImageGenerationRequest {
  readonly prompt: string;
  /** 1–4. */
  readonly n: number;
  readonly size?: string;
  readonly aspectRatio?: string;
  readonly resolution?: string;
  readonly quality?: string;
  readonly background?: string;
  /** png | jpeg | webp (default png). */
  readonly outputFormat: 'png' | 'jpeg' | 'webp';
  readonly user?: string;
  /** Reference images (edits); empty for generations. */
  readonly images: readonly InputFile[];
  /** 1–3 previews to stream before each image (a streamed request only: MediaAdapter.streamImages). */
  readonly partialImages?: number;
}

export interface ImageUpscaleRequest {
  readonly image: InputFile;
  /** 2 or 4. */
  readonly scale: number;
}

export interface GeneratedImage {
  /** The image bytes (decoded from the upstream's base64 or fetched from its URL). */
  readonly data: Uint8Array;
  readonly mediaType: string;
  readonly revisedPrompt?: string | null;
}

/** What an upstream says of a streamed image (OpenAI's event fields); absent when it says nothing. */
export interface ImageEventFacts {
  readonly size?: string;
  readonly quality?: string;
  readonly background?: string;
  readonly outputFormat?: string;
}

/** The token usage an upstream reports on a completed image event. */
export interface ImageTokenUsage {
  readonly inputTokens: number;
  readonly inputTextTokens: number;
  readonly inputImageTokens: number;
  readonly outputTokens: number;
}

/**
 * One event of a streamed image operation: a preview of the image being drawn (`index` 0…
 * partialImages-1), or a finished image. With n images, each image's previews come before it.
 */
export type ImageStreamEvent =
  | { readonly type: 'partial'; readonly index: number; readonly image: GeneratedImage; readonly facts: ImageEventFacts }
  | { readonly type: 'completed'; readonly image: GeneratedImage; readonly facts: ImageEventFacts; readonly usage?: ImageTokenUsage };

export interface SpeechRequest {
  readonly input: string;
  readonly voice: string;
  /** mp3 (default) | opus | aac | flac | wav | pcm. */
  readonly format: 'mp3' | 'opus' | 'aac' | 'flac' | 'wav' | 'pcm';
  readonly speed?: number;
  readonly instructions?: string;
}

/** What each speech format is called when the upstream does not say (or says only octet-stream). */
export const speechMediaTypes: Readonly<Record<SpeechRequest['format'], string>> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

export interface SpeechResult {
  readonly audio: Uint8Array;
  /** audio/mpeg for mp3, audio/wav… */
  readonly mediaType: string;
}

export interface TranscriptionRequest {
  readonly file: InputFile;
  readonly language?: string;
  readonly prompt?: string;
  /** json | text | srt | verbose_json | vtt */
  readonly responseFormat: 'json' | 'text' | 'srt' | 'verbose_json' | 'vtt';
  readonly temperature?: number;
}

export interface TranscriptionResult {
  /** The body to return as the upstream gave it: JSON object for json/verbose_json, text otherwise. */
  readonly body: unknown;
  /** The transcript text (for logs and history). */
  readonly text: string;
  readonly contentType: string;
}

export interface EmbeddingsRequest {
  /** Texts, or token arrays (token ids of the model's tokenizer), one vector each. */
  readonly input: readonly (string | readonly number[])[];
  readonly dimensions?: number;
  readonly user?: string;
}

export interface EmbeddingsResult {
  /** One vector per input, in input order. */
  readonly vectors: readonly (readonly number[])[];
  /** Input tokens as the upstream reported them. */
  readonly inputTokens: number;
}

export type DecisionQuestion =
  | { readonly type: 'noul'; readonly instructions: unknown; readonly criteria?: { readonly true: string; readonly false: string } }
  | { readonly type: 'choice'; readonly instructions: unknown; readonly criteria: Readonly<Record<string, string | null>> }
  | { readonly type: 'score'; readonly instructions: unknown; readonly criteria: readonly string[] };

export interface DecisionRequest {
  readonly state: unknown;
  readonly questions: Readonly<Record<string, DecisionQuestion>>;
  readonly sessionId?: string;
  readonly user?: string;
}

export interface DecisionResult {
  /** Answers keyed by question name, passed through as the upstream gave them. */
  readonly answers: Readonly<Record<string, unknown>>;
  readonly inputTokens: number;
  /** The upstream's model string. */
  readonly model: string;
}
