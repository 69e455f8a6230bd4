// A comma-separated list of scopes as an operator types it (`--scopes "money, read"`), for
// both kinds: a key's (src/auth/scopes.ts) and an admin token's (src/cabinet/admin-scopes.ts).
// The answer is in the kind's canonical order, each once; an unknown name or an empty list is
// refused with the kind's own error, naming the choices.
export function parseScopeList<Scope extends string>(text: string, known: readonly Scope[], kind: { noun: string; refuse: (message: string) => Error }): Scope[] {
  const requested = text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (requested.length === 0) throw kind.refuse(`no scopes given; choose from ${known.join(', ')}`);
  for (const name of requested) {
    if (!(known as readonly string[]).includes(name)) throw kind.refuse(`unknown ${kind.noun} "${name}"; choose from ${known.join(', ')}`);
  }
  return known.filter((scope) => requested.includes(scope));
}
