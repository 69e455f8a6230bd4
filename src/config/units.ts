// Human-friendly durations and sizes of the config file, turned into numbers once at load.

const durationUnits: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const sizeUnits: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };

/** "15m" → 900000 ms; a bare number is seconds. */
export function parseDuration(value: string | number): number {
  if (typeof value === 'number') return value * 1000;
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(value);
  if (!match) throw new Error(`not a duration: ${value}`);
  return Number(match[1]) * durationUnits[match[2]!]!;
}

/** "25MB" → 26214400 bytes; a bare number is bytes. */
export function parseSize(value: string | number): number {
  if (typeof value === 'number') return value;
  const match = /^(\d+)(B|KB|MB|GB|TB)$/.exec(value);
  if (!match) throw new Error(`not a size: ${value}`);
  return Number(match[1]) * sizeUnits[match[2]!]!;
}
