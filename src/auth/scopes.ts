// The seven scopes a key can carry (DESIGN.md §2.4). A route declares the scope it needs in
// the route table; models of type `search` additionally need `search` on top of `chat`.
export const allScopes = ['chat', 'search', 'images', 'video', 'music', 'audio', 'embeddings'] as const;
export type Scope = (typeof allScopes)[number];

export class InvalidScopeError extends Error {}

/** "chat, images" → ['chat', 'images'] in canonical order; unknown names are refused. */
export function parseScopes(text: string): Scope[] {
  const requested = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (requested.length === 0) throw new InvalidScopeError(`no scopes given; choose from ${allScopes.join(', ')}`);
  for (const name of requested) {
    if (!(allScopes as readonly string[]).includes(name)) {
      throw new InvalidScopeError(`unknown scope "${name}"; choose from ${allScopes.join(', ')}`);
    }
  }
  return allScopes.filter((scope) => requested.includes(scope));
}
