// Responses `item_reference` input items: `{type: "item_reference", id}` stands for an output
// item of an earlier answer. The Vercel AI SDK sends them by default (its `store` defaults to
// true) for the reasoning items, assistant messages and provider tool calls of its previous
// step. The gateway stores no responses, but it keeps for a few minutes every output item it
// returned (src/pipeline/returned-items.ts); here are the dialect's three pure parts of that:
// which ids a body refers to, the body with the items put in their place, and which items an
// answer returns.
import type { ChatRequest, ChatResult } from '../../model/chat.js';
import type { ItemReferences, ReferencedItem } from '../types.js';
import { encodeResponsesResult } from './result.js';

function isReference(item: unknown): item is { type: 'item_reference'; id?: unknown } {
  return typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'item_reference';
}

export const responsesItemReferences: ItemReferences = {
  unknownItemMessage(id: string, keptMinutes: number): string {
    return `item_reference '${id}' refers to no item this gateway returned to this account in the last ${keptMinutes} minutes; send the item itself instead of a reference`;
  },

  referencedIds(body: unknown): ReferencedItem[] {
    const input = (body as { input?: unknown } | null)?.input;
    if (!Array.isArray(input)) return [];
    const referenced: ReferencedItem[] = [];
    input.forEach((item, index) => {
      // A reference without a string id is left to the decoder, which names what is wrong.
      if (isReference(item) && typeof item.id === 'string') referenced.push({ loc: ['body', 'input', index, 'id'], id: item.id });
    });
    return referenced;
  },

  substitute(body: unknown, items: ReadonlyMap<string, unknown>): unknown {
    const input = (body as { input: unknown[] }).input;
    return {
      ...(body as Record<string, unknown>),
      input: input.map((item) => (isReference(item) && typeof item.id === 'string' && items.has(item.id) ? items.get(item.id) : item)),
    };
  },

  returnedItems(result: ChatResult, request: ChatRequest): { id: string; item: unknown }[] {
    // The very items the client received: the stream's response.completed carries the same ids.
    return encodeResponsesResult(result, request).output.map((item) => ({ id: item.id, item }));
  },
};
