// Encodes a whole ChatResult as a Gemini `GenerateContentResponse`: one candidate whose parts
// are the answer's text, thoughts (when the client asked to see them: includeThoughts) and
// function calls, its finishReason and groundingMetadata, then usageMetadata.
import type { ChatRequest, ChatResult } from '../../model/chat.js';
import { functionArgs, groundingMetadata, type PlacedCitation } from './parts.js';
import { encodeUsageMetadata, toGeminiFinishReason } from './usage.js';

export function encodeGenerateContentResult(result: ChatResult, request: ChatRequest) {
  const parts: Record<string, unknown>[] = [];
  /** Content position → index in `parts`, for the citations. */
  const partIndexOf = new Map<number, number>();
  result.content.forEach((part, position) => {
    switch (part.type) {
      case 'text':
        partIndexOf.set(position, parts.push({ text: part.text }) - 1);
        return;
      case 'reasoning':
        if (request.showReasoning) parts.push({ text: part.text, thought: true, ...(part.signature ? { thoughtSignature: part.signature } : {}) });
        return;
      case 'redacted_reasoning':
        return; // encrypted reasoning has no text to show
      case 'tool_call':
        parts.push({ functionCall: { id: part.id, name: part.name, args: functionArgs(part.arguments) } });
    }
  });
  const placed: PlacedCitation[] = result.citations.map(({ contentIndex, ...citation }) => {
    const partIndex = partIndexOf.get(contentIndex);
    const cited = result.content[contentIndex];
    return partIndex === undefined || cited?.type !== 'text' ? { citation } : { citation, partIndex, textLength: cited.text.length };
  });
  const grounding = groundingMetadata(placed);
  return {
    candidates: [
      {
        // An answer with nothing to show still has a part: the SDK's chat keeps a turn only if its content has one.
        content: { role: 'model', parts: parts.length > 0 ? parts : [{ text: '' }] },
        finishReason: toGeminiFinishReason(result.finishReason, result.rawFinishReason),
        index: 0,
        ...(grounding ? { groundingMetadata: grounding } : {}),
      },
    ],
    usageMetadata: encodeUsageMetadata(result.usage),
    modelVersion: request.model,
    responseId: result.id,
  };
}

/** POST …:countTokens. */
export function encodeCountTokens(totalTokens: number) {
  return { totalTokens };
}
