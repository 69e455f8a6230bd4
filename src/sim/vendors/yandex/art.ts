// YandexART (POST /foundationModels/v1/imageGenerationAsync, then GET /operations/{id}): the
// submit answers an Operation that is not done; the first poll of it finds it done, holding a
// deterministic PNG (patternPng of the prompt) of 1024 pixels on its long side at the asked
// aspect ratio. Operations live as long as the simulator.
import type { ServerResponse } from 'node:http';
import { patternPng } from '../../media/png.js';
import { parseFaults } from '../../faults.js';
import { isRecord } from '../../guards.js';
import { perSimulator, sendJsonAnswer } from '../prefixed-wire.js';
import type { UsageBook } from '../../usage-book.js';
import { YandexSimError } from './errors.js';

interface ArtOperation {
  readonly image: string;
  readonly createdAt: string;
  polls: number;
}

const operationsOf = perSimulator(() => ({ byId: new Map<string, ArtOperation>(), count: 0 }));

const longSide = 1024;

function sizeOf(ratio: unknown): { width: number; height: number } {
  const width = isRecord(ratio) ? Number(ratio.widthRatio) : 1;
  const height = isRecord(ratio) ? Number(ratio.heightRatio) : 1;
  if (!(width > 0 && height > 0)) throw new YandexSimError(400, 'generationOptions.aspectRatio: widthRatio and heightRatio must be positive');
  return width >= height ? { width: longSide, height: Math.max(1, Math.round((longSide * height) / width)) } : { width: Math.max(1, Math.round((longSide * width) / height)), height: longSide };
}

function operationJson(id: string, operation: ArtOperation, done: boolean): unknown {
  return {
    id,
    description: 'Async Image Generation',
    createdAt: operation.createdAt,
    createdBy: 'sim',
    modifiedAt: operation.createdAt,
    done,
    metadata: null,
    ...(done ? { response: { '@type': 'type.googleapis.com/yandex.cloud.ai.foundation_models.v1.image_generation.ImageGenerationResponse', image: operation.image, modelVersion: '' } } : {}),
  };
}

export function handleImageGeneration(response: ServerResponse, book: UsageBook, body: unknown, seed: string): void {
  if (!isRecord(body)) throw new YandexSimError(400, 'request body must be a JSON object');
  if (typeof body.modelUri !== 'string' || !/^art:\/\/[^/]+\/.+/.test(body.modelUri)) throw new YandexSimError(400, 'modelUri: expected art://<folder_id>/yandex-art/latest');
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const text = messages.map((message: unknown) => (isRecord(message) && typeof message.text === 'string' ? message.text : '')).join(' ');
  if (text.trim() === '') throw new YandexSimError(400, 'messages: a text prompt is required');
  const faults = parseFaults(text);
  if (faults.status !== undefined) throw new YandexSimError(faults.status, 'Simulated failure');
  const options = isRecord(body.generationOptions) ? body.generationOptions : {};
  const { width, height } = sizeOf(options.aspectRatio);
  const state = operationsOf(book);
  const id = `fbv${seed.slice(0, 12)}${(++state.count).toString(36).padStart(5, '0')}`;
  const operation: ArtOperation = { image: patternPng(width, height, seed).toString('base64'), createdAt: new Date().toISOString(), polls: 0 };
  state.byId.set(id, operation);
  sendJsonAnswer(response, 200, operationJson(id, operation, false));
}

export function handleOperation(response: ServerResponse, book: UsageBook, id: string): void {
  const operation = operationsOf(book).byId.get(id);
  if (!operation) throw new YandexSimError(404, `Operation ${id} not found`);
  operation.polls++;
  sendJsonAnswer(response, 200, operationJson(id, operation, true));
}
