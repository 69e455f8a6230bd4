// Internal content and citations as Gemini parts and groundingMetadata, shared by the body and the stream.
import type { Citation } from '../../model/chat.js';
import { parseBoundedJson } from '../../util/json-depth.js';

/** functionCall.args is an object; arguments that are not a JSON object (or nest too deep) become {}. */
export function functionArgs(args: string): Record<string, unknown> {
  const parsed = parseBoundedJson(args);
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}

/** A citation, the part (index in the candidate's parts) whose text it cites, and that text's length, when known. */
export interface PlacedCitation {
  readonly citation: Citation;
  readonly partIndex?: number;
  /** A citation without offsets applies to its whole text (Anthropic's do): its segment is all of it. */
  readonly textLength?: number;
}

/**
 * Search citations as `groundingMetadata`: each cited page once in `groundingChunks`, and a
 * `groundingSupports` entry for each citation that says where in the text it applies (offsets
 * are characters of the cited part's text; without offsets, the whole text). Undefined when there are none.
 */
export function groundingMetadata(placed: readonly PlacedCitation[]) {
  if (placed.length === 0) return undefined;
  const urls: string[] = [];
  const groundingChunks: { web: { uri: string; title?: string } }[] = [];
  const groundingSupports: Record<string, unknown>[] = [];
  for (const { citation, partIndex, textLength } of placed) {
    let chunk = urls.indexOf(citation.url);
    if (chunk < 0) {
      chunk = urls.push(citation.url) - 1;
      groundingChunks.push({ web: { uri: citation.url, ...(citation.title ? { title: citation.title } : {}) } });
    }
    const whole = citation.startIndex === undefined || citation.endIndex === undefined;
    if (whole && textLength === undefined) continue;
    const segment = {
      ...(partIndex === undefined ? {} : { partIndex }),
      startIndex: whole ? 0 : citation.startIndex,
      endIndex: whole ? textLength : citation.endIndex,
    };
    groundingSupports.push({ segment, groundingChunkIndices: [chunk] });
  }
  return { groundingChunks, ...(groundingSupports.length > 0 ? { groundingSupports } : {}) };
}
