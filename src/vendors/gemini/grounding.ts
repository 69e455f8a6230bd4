// Search grounding (`groundingMetadata` on a candidate) → Citations. Gemini lists its sources
// as groundingChunks (`web: {uri, title}`) and ties spans of the answer to them with
// groundingSupports (`segment: {startIndex, endIndex, text}`, `groundingChunkIndices`). Each
// (support, source) pair becomes one Citation with the span and the cited passage; sources no
// support names become a Citation without a span. Segment offsets are UTF-8 byte offsets into
// the answer's text; Citations count characters, so they are converted against that text.
import type { Citation } from '../../model/chat.js';
import { arrayOf, objectOf, stringOf, type JsonObject } from '../shared/json.js';

export function groundingCitations(metadata: JsonObject, text: string): Citation[] {
  const sources = arrayOf(metadata.groundingChunks).map((chunk) => {
    const web = objectOf(objectOf(chunk)?.web) ?? objectOf(objectOf(chunk)?.retrievedContext);
    const url = stringOf(web?.uri);
    const title = stringOf(web?.title);
    return url ? { url, ...(title ? { title } : {}) } : undefined;
  });
  const citations: Citation[] = [];
  const supported = new Set<number>();
  for (const item of arrayOf(metadata.groundingSupports)) {
    const support = objectOf(item);
    const segment = objectOf(support?.segment);
    const span = segment ? spanOf(segment, text) : {};
    for (const index of arrayOf(support?.groundingChunkIndices)) {
      const source = typeof index === 'number' ? sources[index] : undefined;
      if (!source) continue;
      supported.add(index as number);
      citations.push({ ...source, ...span });
    }
  }
  sources.forEach((source, index) => {
    if (source && !supported.has(index)) citations.push(source);
  });
  return citations;
}

function spanOf(segment: JsonObject, text: string): Pick<Citation, 'startIndex' | 'endIndex' | 'citedText'> {
  const citedText = stringOf(segment.text);
  const start = typeof segment.startIndex === 'number' ? segment.startIndex : 0; // proto3 leaves a 0 out
  const end = segment.endIndex;
  return {
    ...(typeof end === 'number' ? { startIndex: charOffset(text, start), endIndex: charOffset(text, end) } : {}),
    ...(citedText ? { citedText } : {}),
  };
}

/** The character offset of a UTF-8 byte offset into `text` (the end when past it). */
function charOffset(text: string, bytes: number): number {
  return Buffer.from(text, 'utf8').subarray(0, bytes).toString('utf8').length;
}
