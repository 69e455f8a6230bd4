// GET /admin/v1/openapi.json: the admin API's OpenAPI 3.1 document (src/admin/openapi.ts),
// public like /v1/models: it describes the API, it opens nothing. Built once per process.
import { openApiDocument } from '../../admin/openapi.js';
import { gatewayVersion } from '../../admin/system.js';
import type { Handler } from '../state.js';

let document: Record<string, unknown> | undefined;

export const adminOpenApi: Handler = (ctx) => {
  document ??= openApiDocument(gatewayVersion());
  ctx.body = document;
};
