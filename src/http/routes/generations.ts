// GET /v1/generations?type=image|video|music, GET /v1/generations/{type}/{id} and
// GET /v1/generations/{type}/{id}/content?index=N: the key's own account's generation history,
// newest first; ids are numbered per type; content is one of the entry's files, with Range.
import { z } from 'zod';
import { generationTypes, publicGeneration, type Generation, type GenerationType } from '../../storage/generations.js';
import type { ServerServices } from '../../services.js';
import { invalid, validate } from '../../validation/zod-details.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { Context, Handler } from '../state.js';
import { integerPathId, listPage, pageQuery, sendStoredFile, withCursor } from './files.js';

// The spec lists one type at a time (its ids and cursor count within the type): `type` is required.
const listQuery = pageQuery.extend({ type: z.enum(generationTypes) });

export const listGenerations: Handler = async (ctx, services) => {
  const query = validate(listQuery, ctx.query, 'query');
  const page = await withCursor(query, (cursor) => services.generations.list(ctx.state.apiKey!.accountId, { type: query.type, limit: query.limit, cursor }));
  ctx.body = listPage(page.items.map(publicGeneration), page.nextCursor);
};

export async function ownGeneration(ctx: Context, services: ServerServices): Promise<Generation> {
  const type = ctx.params.type ?? '';
  if (!(generationTypes as readonly string[]).includes(type)) throw invalid(['path', 'type'], `Input should be ${generationTypes.map((t) => `'${t}'`).join(', ')}`, type, 'enum');
  const raw = ctx.params.id ?? '';
  const id = integerPathId(raw);
  const generation = id !== undefined ? await services.generations.get(ctx.state.apiKey!.accountId, type as GenerationType, id) : undefined;
  if (!generation) throw new GatewayError('not_found', `No ${type} generation found with id '${raw}'.`);
  return generation;
}

export const retrieveGeneration: Handler = async (ctx, services) => {
  ctx.body = publicGeneration(await ownGeneration(ctx, services));
};

export const generationContent: Handler = async (ctx, services) => {
  const generation = await ownGeneration(ctx, services);
  const rawIndex = ctx.query.index ?? '0';
  if (typeof rawIndex !== 'string' || !/^\d{1,3}$/.test(rawIndex)) throw invalid(['query', 'index'], 'Input should be a valid integer', rawIndex, 'int_parsing');
  if (generation.status !== 'completed') {
    throw new GatewayError('content_not_ready', `The ${generation.type} generation ${generation.number} is not ready: its status is ${generation.status}.`);
  }
  const fileId = generation.fileIds[Number(rawIndex)];
  if (fileId === undefined) throw new GatewayError('not_found', `The ${generation.type} generation ${generation.number} has no file at index ${rawIndex}.`);
  const file = await services.files.get(generation.accountId, fileId);
  if (!file) throw new GatewayError('content_expired', `The content of ${generation.type} generation ${generation.number} has expired and was removed.`);
  await sendStoredFile(ctx, services, file);
};
