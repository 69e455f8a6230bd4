// The seven scopes a key can carry (DESIGN.md §2.4). A route declares the scope it needs in
// the route table; models of type `search` additionally need `search` on top of `chat`.
import { DomainError } from '../errors/domain-error.js';
import { parseScopeList } from './scope-list.js';

export const allScopes = ['chat', 'search', 'images', 'video', 'music', 'audio', 'embeddings'] as const;
export type Scope = (typeof allScopes)[number];

export class InvalidScopeError extends DomainError {
  override readonly catalogCode = 'invalid_argument';
  override readonly seenIn = 'cli';
}

/** "chat, images" → ['chat', 'images'] in canonical order; unknown names are refused. */
export function parseScopes(text: string): Scope[] {
  return parseScopeList(text, allScopes, { noun: 'scope', refuse: (message) => new InvalidScopeError(message) });
}
