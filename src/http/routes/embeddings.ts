// POST /v1/embeddings: parsed and encoded by the wire codec (dialects/openai-media/embeddings.ts),
// charged by the pipeline on the upstream's token count (pipeline/embeddings.ts).
import { embeddingsBody, encodeEmbeddings } from '../../dialects/openai-media/embeddings.js';
import { createEmbeddings as runEmbeddings } from '../../pipeline/embeddings.js';
import { validate } from '../../validation/zod-details.js';
import { callerOf, type Handler } from '../state.js';

export const createEmbeddings: Handler = async (ctx, services) => {
  const body = validate(embeddingsBody, ctx.request.body, 'body');
  const { embeddings } = await runEmbeddings(services, callerOf(ctx), body);
  ctx.body = encodeEmbeddings(embeddings, body.model, body.encoding_format);
};
