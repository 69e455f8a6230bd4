// Gemini's thought signatures, carried as reasoning signatures so they round-trip through every
// client dialect the way Anthropic's thinking signatures do. Gemini puts a `thoughtSignature`
// on a part of the model's answer: a thought part (`thought: true`), or — most often — the
// first functionCall part or the answer's last text part. The stream parser (stream.ts) turns
//   - a signature on a thought part into that reasoning block's signature;
//   - a signature on a functionCall part into a reasoning block with no text and that
//     signature, just before the call;
//   - a signature on a text part into such a block just AFTER the text block (the text stays
//     one block; Gemini concatenates text parts anyway).
// Going back up (assistantParts), a reasoning part with a signature and no text gives its
// signature to the part after it, or to an empty text part at the end of the turn; with text it
// goes up as a signed thought part. Gemini 3
// refuses a function call of the current turn that lost its signature: a call that never had
// one (made by another upstream) gets Google's documented placeholder instead.
import type { AssistantContentPart } from '../../model/chat.js';
import { toolArgs, type GeminiPart } from './contents.js';

/** Google's documented value for calls that have no signature of Gemini's (docs: "thought signatures"). */
export const placeholderSignature = 'skip_thought_signature_validator';

export function assistantParts(parts: readonly AssistantContentPart[], needsSignatures: boolean): GeminiPart[] {
  const out: GeminiPart[] = [];
  let pending: string | undefined;
  let signedCall = false;
  for (const part of parts) {
    switch (part.type) {
      case 'reasoning':
        if (!part.signature) break;
        if (part.text === '') pending = part.signature;
        else out.push({ text: part.text, thought: true, thoughtSignature: part.signature });
        break;
      case 'redacted_reasoning':
        break; // Anthropic's encrypted reasoning: nothing Gemini can read
      case 'text':
        if (part.text === '' && pending === undefined) break;
        out.push({ text: part.text, ...(pending !== undefined ? { thoughtSignature: pending } : {}) });
        pending = undefined;
        break;
      case 'tool_call': {
        // Only the first call of a turn carries a signature; the placeholder stands in when it has none.
        const signature = pending ?? (needsSignatures && !signedCall ? placeholderSignature : undefined);
        out.push({ functionCall: { name: part.name, args: toolArgs(part.arguments) }, ...(signature !== undefined ? { thoughtSignature: signature } : {}) });
        signedCall = true;
        pending = undefined;
        break;
      }
    }
  }
  // A signature with nothing after it (the answer's last part was signed and empty): an empty text part keeps it.
  if (pending !== undefined) out.push({ text: '', thoughtSignature: pending });
  return out;
}
