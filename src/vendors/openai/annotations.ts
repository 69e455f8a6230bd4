// `delta.annotations` url_citation items (OpenAI search models, OpenRouter web search) → Citation.
import type { Citation } from '../../model/chat.js';
import { arrayOf, objectOf, stringOf, type JsonObject } from '../shared/json.js';

const none: readonly Citation[] = [];

export function annotationCitations(delta: JsonObject | undefined): readonly Citation[] {
  if (delta?.annotations === undefined) return none; // most deltas: nothing to build
  const citations: Citation[] = [];
  for (const item of arrayOf(delta?.annotations)) {
    const annotation = objectOf(item);
    const cited = objectOf(annotation?.url_citation);
    const url = stringOf(cited?.url);
    if (annotation?.type !== 'url_citation' || !cited || !url) continue;
    const title = stringOf(cited.title);
    const start = cited.start_index;
    const end = cited.end_index;
    citations.push({
      url,
      ...(title ? { title } : {}),
      ...(typeof start === 'number' ? { startIndex: start } : {}),
      ...(typeof end === 'number' ? { endIndex: end } : {}),
    });
  }
  return citations;
}
