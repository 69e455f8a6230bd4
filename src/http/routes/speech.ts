// POST /v1/audio/speech: text in, audio bytes out (never a JSON success body), or with
// `stream_format: "sse"` the audio as `speech.audio.delta` events. The charge is the pipeline's.
// A model whose routes stream speech (ElevenLabs) relays the audio as it is spoken
// (pipeline/speech-stream.ts); others answer once the upstream's whole answer came.
// POST /v1/audio/speech/price: the same body priced by the same quote, nothing made or charged.
import { speechBody } from '../../dialects/openai-media/audio.js';
import { speechEvents } from '../../dialects/openai-media/audio-events.js';
import { countTextTokens } from '../../model/token-estimate.js';
import { createSpeech as runSpeech, quoteSpeech } from '../../pipeline/audio.js';
import { streamSpeech, streamsSpeech } from '../../pipeline/speech-stream.js';
import { validate } from '../../validation/zod-details.js';
import { koaSink } from '../koa-sink.js';
import { callerOf, type Handler } from '../state.js';
import { answerPrice } from './price-answer.js';

export const createSpeech: Handler = async (ctx, services) => {
  const body = validate(speechBody, ctx.request.body, 'body');
  if (streamsSpeech(services, body)) {
    await streamSpeech(services, callerOf(ctx), body, koaSink(ctx));
    return;
  }
  const { speech } = await runSpeech(services, callerOf(ctx), body);
  if (body.stream_format === 'sse') {
    ctx.type = 'text/event-stream';
    ctx.set('cache-control', 'no-cache');
    ctx.body = speechEvents(speech.audio, { input_tokens: countTextTokens(body.input), output_tokens: 0 });
    return;
  }
  ctx.type = speech.mediaType;
  ctx.body = Buffer.from(speech.audio);
};

export const priceSpeech: Handler = (ctx, services) => {
  const body = validate(speechBody, ctx.request.body, 'body');
  const quote = quoteSpeech(services, body);
  answerPrice(ctx, services, { object: 'speech.price', model: quote.model.id, priceUnits: quote.priceUnits }, { characters: quote.characters });
};
