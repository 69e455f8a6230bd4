// What a 422 `detail` entry echoes of the input it refuses. pydantic echoes it whole; a 10 MB
// string or a 100,000-item list refused for its type would come back whole too, so a request
// could make the gateway write (and the client read) megabytes per error. Small inputs are
// echoed as they are; longer strings are cut, large lists and objects are described.

/** Characters of a string echoed before it is cut; the JSON size a list or object may have. */
export const maxEchoedCharacters = 1000;
/** Entries of one 422 `detail`: enough to fix a request, few enough to stay small. */
export const maxDetailEntries = 100;

export function echoedInput(input: unknown): unknown {
  if (typeof input === 'string') {
    return input.length <= maxEchoedCharacters ? input : `${input.slice(0, maxEchoedCharacters)}… (${input.length} characters)`;
  }
  if (typeof input !== 'object' || input === null) return input;
  if (fitsIn(input, maxEchoedCharacters) >= 0) return input;
  return Array.isArray(input) ? `[list of ${input.length} items, too large to echo]` : `{dict of ${Object.keys(input).length} keys, too large to echo}`;
}

/**
 * `budget` less the value's approximate JSON size, or -1 as soon as it is exceeded: the walk
 * stops there, so its cost and its recursion are bounded by the budget, not by the value.
 */
function fitsIn(value: unknown, budget: number): number {
  if (typeof value === 'string') return budget - value.length - 2;
  if (typeof value !== 'object' || value === null) return budget - String(value).length;
  let left = budget - 2;
  if (Array.isArray(value)) {
    for (const item of value) {
      left = fitsIn(item, left - 1);
      if (left < 0) return -1;
    }
    return left;
  }
  for (const key in value) {
    left = fitsIn((value as Record<string, unknown>)[key], left - key.length - 4);
    if (left < 0) return -1;
  }
  return left;
}
