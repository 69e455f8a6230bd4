// The output items of recent answers, per account, so that a later request may refer to them
// by id (Responses `item_reference`, which the Vercel AI SDK sends by default). Kept like the
// prompt-cache prefixes (prefix-tracker.ts): in bounded memory, or in Redis when configured so
// that every instance finds them, for a few minutes each. Nothing else about a response is
// stored: `store` and `previous_response_id` stay refused.
import type Keyv from 'keyv';
import type { Dialect } from '../dialects/types.js';
import type { ChatRequest, ChatResult } from '../model/chat.js';
import { invalid } from '../validation/zod-details.js';

const keptMinutes = 5;
export const returnedItemsTtlMs = keptMinutes * 60_000;

export class ReturnedItems {
  /** `guard` runs the store's work (over Redis: refused at once while Redis is down, bounded by cache.timeout). */
  constructor(
    private readonly store: Keyv<unknown>,
    private readonly guard: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
  ) {}

  /**
   * The body with its references replaced by the items they name; a 422 naming the input
   * item for an id that is unknown to this account. A store that cannot answer finds nothing.
   */
  async resolve(dialect: Dialect, accountId: string, body: unknown): Promise<unknown> {
    const references = dialect.itemReferences;
    const referenced = references?.referencedIds(body) ?? [];
    if (!references || referenced.length === 0) return body;
    const ids = [...new Set(referenced.map((reference) => reference.id))];
    let found: unknown[];
    try {
      found = (await this.guard(() => this.store.get(ids.map((id) => keyOf(accountId, id))))) as unknown[];
    } catch {
      found = [];
    }
    const items = new Map(ids.flatMap((id, position) => (found[position] === undefined ? [] : [[id, found[position]] as const])));
    const unknown = referenced.find((reference) => !items.has(reference.id));
    if (unknown) throw invalid(unknown.loc, references.unknownItemMessage(unknown.id, keptMinutes), unknown.id);
    return references.substitute(body, items);
  }

  /**
   * Keeps an answer's output items. Done before the answer's end goes out, so the client's next
   * request finds them; a store that fails only costs later references (logged by `onFailure`).
   */
  async remember(dialect: Dialect, accountId: string, result: ChatResult, request: ChatRequest, onFailure: (error: unknown) => void): Promise<void> {
    if (!dialect.itemReferences) return;
    const items = dialect.itemReferences.returnedItems(result, request);
    try {
      await this.guard(() => Promise.all(items.map(({ id, item }) => this.store.set(keyOf(accountId, id), item, returnedItemsTtlMs))));
    } catch (error) {
      onFailure(error);
    }
  }
}

/** Ids are per account: another account's id is unknown, as another account's job is 404. */
function keyOf(accountId: string, itemId: string): string {
  return `${accountId}:${itemId}`;
}
