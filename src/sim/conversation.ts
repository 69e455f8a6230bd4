// The one conversation rule both vendors enforce and both simulator endpoints share: every
// tool call an assistant turn makes is answered by a tool result in the very next user turn,
// and a tool result answers a call of the turn right before it. Gateways that lose or reorder
// tool results in translation get the same 400 from the simulator as from the real API.

/** A conversation turn reduced to what the tool-pairing rule looks at (same-role turns merged). */
export interface PairingTurn {
  readonly role: 'user' | 'assistant';
  readonly toolCallIds: readonly string[];
  readonly toolResultIds: readonly string[];
}

export type PairingProblem =
  | { readonly kind: 'missing_result'; readonly turn: number; readonly ids: readonly string[] }
  | { readonly kind: 'unexpected_result'; readonly turn: number; readonly ids: readonly string[] };

export function checkToolPairing(turns: readonly PairingTurn[]): PairingProblem | null {
  for (let index = 0; index < turns.length; index++) {
    const turn = turns[index]!;
    if (turn.role === 'assistant' && turn.toolCallIds.length > 0 && index + 1 < turns.length) {
      const next = turns[index + 1]!;
      const answered = new Set(next.role === 'user' ? next.toolResultIds : []);
      const missing = turn.toolCallIds.filter((id) => !answered.has(id));
      if (missing.length > 0) return { kind: 'missing_result', turn: index, ids: missing };
    }
    if (turn.role === 'user' && turn.toolResultIds.length > 0) {
      const previous = index > 0 ? turns[index - 1]! : undefined;
      const called = new Set(previous?.role === 'assistant' ? previous.toolCallIds : []);
      const unexpected = turn.toolResultIds.filter((id) => !called.has(id));
      if (unexpected.length > 0) return { kind: 'unexpected_result', turn: index, ids: unexpected };
    }
  }
  return null;
}
