// Search citations of compatible servers. Perplexity repeats, on every chunk, a top-level
// `citations: string[]` (URLs) and/or `search_results: [{title, url, date}]`; OpenRouter's web
// plugin sends OpenAI-style `delta.annotations`. One Citation per URL, titled from
// search_results when it has one (the parser emits each only once).
import type { Citation } from '../../model/chat.js';
import { annotationCitations } from '../openai/annotations.js';
import { arrayOf, objectOf, stringOf, type JsonObject } from '../shared/json.js';

const none: readonly Citation[] = [];

export function compatibleCitationsOf(chunk: JsonObject, delta: JsonObject | undefined): readonly Citation[] {
  // Most chunks carry none: no collections are built for them (this runs for every chunk).
  const search = chunk.search_results === undefined && chunk.citations === undefined ? none : searchCitations(chunk);
  const annotations = annotationCitations(delta);
  return annotations.length === 0 ? search : search.length === 0 ? annotations : [...search, ...annotations];
}

function searchCitations(chunk: JsonObject): Citation[] {
  const titles = new Map<string, string | undefined>();
  for (const item of arrayOf(chunk.search_results)) {
    const result = objectOf(item);
    const url = stringOf(result?.url);
    if (url) titles.set(url, stringOf(result?.title) || undefined);
  }
  const urls = new Set<string>();
  for (const url of arrayOf(chunk.citations)) if (typeof url === 'string' && url) urls.add(url);
  for (const url of titles.keys()) urls.add(url);
  return [...urls].map((url) => {
    const title = titles.get(url);
    return title ? { url, title } : { url };
  });
}
