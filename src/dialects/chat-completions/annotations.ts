// Citations → Chat `url_citation` annotations. A Chat message has one text (all text parts
// joined), so a citation's offsets, relative to its own text part, are shifted by the length
// of the text before that part. A citation without offsets (Anthropic cites whole text
// blocks) covers its whole text part. Offsets are JavaScript string indexes (UTF-16 units).
import type { Citation } from '../../model/chat.js';

export interface UrlCitationAnnotation {
  type: 'url_citation';
  url_citation: { url: string; title: string; start_index: number; end_index: number };
}

/** `partStart`: offset of the cited text part in the joined text; `partLength`: its length. */
export function toAnnotation(citation: Citation, partStart: number, partLength: number): UrlCitationAnnotation {
  return {
    type: 'url_citation',
    url_citation: {
      url: citation.url,
      title: citation.title ?? '',
      start_index: partStart + (citation.startIndex ?? 0),
      end_index: partStart + (citation.endIndex ?? partLength),
    },
  };
}
