// Stream parts number their blocks with one counter across all kinds, not necessarily from 0
// and not contiguous per kind. Client dialects number differently: Chat tool calls by their
// position among tool calls, Anthropic content blocks 0..n-1 in emission order, Responses
// output items by output_index. Ordinals hands out 0, 1, 2… to keys in first-seen order.
export class Ordinals<K = number> {
  private readonly assigned = new Map<K, number>();

  /** The ordinal of `key`, assigning the next one if it is new. */
  of(key: K): number {
    let ordinal = this.assigned.get(key);
    if (ordinal === undefined) {
      ordinal = this.assigned.size;
      this.assigned.set(key, ordinal);
    }
    return ordinal;
  }

  /** The ordinal of `key` if it has one. */
  get(key: K): number | undefined {
    return this.assigned.get(key);
  }
}
