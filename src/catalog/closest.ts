// "Did you mean …?" for unknown model names: smallest edit distance, case-insensitive,
// with a bonus for candidates that contain what was typed (e.g. "gpt-4o" → "openai/gpt-4o").

export function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

export function closestMatches(requested: string, candidates: readonly string[], count: number): string[] {
  const wanted = requested.toLowerCase();
  const scored = candidates.map((candidate) => {
    const lower = candidate.toLowerCase();
    const score = lower.includes(wanted) || wanted.includes(lower) ? Math.abs(lower.length - wanted.length) / 10 : editDistance(wanted, lower);
    return { candidate, score };
  });
  const limit = Math.max(3, Math.ceil(wanted.length / 2));
  return scored
    .filter((s) => s.score <= limit)
    .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate))
    .slice(0, count)
    .map((s) => s.candidate);
}
