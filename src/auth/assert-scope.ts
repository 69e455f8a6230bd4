// A key's scopes checked where the scope is known: the route table's scope by the HTTP shell
// (src/http/middleware/require-scope.ts), a model's extra scope by the pipeline (search models
// need `search` on top of `chat`). Here, not in http/, so the pipeline needs nothing of the shell.
import { forbiddenScope } from '../errors/refusals.js';
import type { ApiKey } from './api-keys.js';
import type { Scope } from './scopes.js';

export function assertScope(apiKey: ApiKey, scope: Scope): void {
  if (!apiKey.scopes.includes(scope)) throw forbiddenScope(scope);
}
