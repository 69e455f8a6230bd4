// The cabinet's gallery and files beyond what /v1 offers: generations listed with their files'
// state (kept or expiring), keeping and deleting a generation, deleting a file, and the
// permanent quota. Reading content goes through the /v1 handlers (route table). Another
// account's id is a 404 like an unknown one.
import { z } from 'zod';
import { generationTypes, publicGeneration, type Generation } from '../../storage/generations.js';
import { publicFile, type StoredFile } from '../../storage/files.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ServerServices } from '../../services.js';
import { validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';
import { listPage, ownFile, pageQuery, withCursor } from './files.js';
import { ownGeneration } from './generations.js';

// The spec lists one type at a time (its ids and cursor count within the type): `type` is required.
const listQuery = pageQuery.extend({ type: z.enum(generationTypes) });

/**
 * The /v1 generation object with `files`: one entry per file_ids entry, in order — the file
 * (media type, bytes, permanent, expires_at) or null once it has expired or been deleted.
 */
async function withFiles(services: ServerServices, accountId: string, generations: readonly Generation[]): Promise<Record<string, unknown>[]> {
  const live = new Map<number, StoredFile>();
  for (const file of await services.files.getMany(accountId, generations.flatMap((generation) => generation.fileIds))) live.set(file.id, file);
  return generations.map((generation) => ({
    ...publicGeneration(generation),
    files: generation.fileIds.map((id) => {
      const file = live.get(id);
      return file ? publicFile(file) : null;
    }),
  }));
}

export const listCabinetGenerations: Handler = async (ctx, services) => {
  const query = validate(listQuery, ctx.query, 'query');
  const accountId = ctx.state.apiKey!.accountId;
  const page = await withCursor(query, (cursor) => services.generations.list(accountId, { type: query.type, limit: query.limit, cursor }));
  ctx.body = listPage(await withFiles(services, accountId, page.items), page.nextCursor);
};

export const retrieveCabinetGeneration: Handler = async (ctx, services) => {
  const generation = await ownGeneration(ctx, services);
  ctx.body = (await withFiles(services, generation.accountId, [generation]))[0];
};

function assertFinished(generation: Generation, action: string): void {
  if (generation.status === 'queued' || generation.status === 'in_progress') {
    throw new GatewayError('content_not_ready', `The ${generation.type} generation ${generation.number} is still ${generation.status}: ${action} it once it has finished.`);
  }
}

/** Keeps every file of a completed generation within the permanent quota: all of them or none (409 quota_exceeded). */
export const keepCabinetGeneration: Handler = async (ctx, services) => {
  const generation = await ownGeneration(ctx, services);
  assertFinished(generation, 'keep');
  if (generation.status !== 'completed') {
    throw new GatewayError('content_not_ready', `The ${generation.type} generation ${generation.number} has no content to keep: its status is ${publicGeneration(generation).status}.`);
  }
  const live = await services.files.getMany(generation.accountId, generation.fileIds);
  if (live.length < generation.fileIds.length) {
    throw new GatewayError('content_expired', `The content of ${generation.type} generation ${generation.number} has expired or was deleted: there is nothing to keep.`);
  }
  await services.files.keepAll(generation.accountId, generation.fileIds, services.config.storage.permanentQuotaBytes);
  ctx.body = (await withFiles(services, generation.accountId, [generation]))[0];
};

/**
 * Deletes a finished generation's files at once. The entry stays (it was charged: the ledger
 * and the history keep pointing at it), its files then null and its content a 404.
 */
export const deleteCabinetGeneration: Handler = async (ctx, services) => {
  const generation = await ownGeneration(ctx, services);
  assertFinished(generation, 'delete');
  for (const fileId of generation.fileIds) await services.files.remove(generation.accountId, fileId);
  ctx.body = { id: generation.number, object: 'generation.deleted', type: generation.type, deleted: true };
};

export const deleteCabinetFile: Handler = async (ctx, services) => {
  const file = await ownFile(ctx, services);
  await services.files.remove(file.accountId, file.id);
  ctx.body = { id: file.id, object: 'file.deleted', deleted: true };
};

export const cabinetFilesQuota: Handler = async (ctx, services) => {
  ctx.body = { used_bytes: await services.files.permanentBytes(ctx.state.apiKey!.accountId), quota_bytes: services.config.storage.permanentQuotaBytes };
};
