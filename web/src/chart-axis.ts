// The value axis of the spending chart: a few round tick values from 0 to at least the largest
// bar (1, 2 or 5 times a power of ten apart), so the bars can be read against amounts. Pure:
// unit-tested in test/web/chart-axis.test.ts. The ticks size the axis only; the amounts
// themselves are shown from the server's exact strings (in the bars' titles and the table).

/** Tick values from 0 up, `intervals` steps at most (4 by default); [0] when nothing was spent. */
export function axisTicks(largest: number, intervals = 4): number[] {
  if (!(largest > 0)) return [0];
  const rough = largest / intervals;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough)!;
  const ticks: number[] = [];
  // Rounded to the step's decimals: 0.1 + 0.2 is not 0.3 in floating point.
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  for (let index = 0; ticks.length === 0 || ticks.at(-1)! < largest; index++) ticks.push(Number((index * step).toFixed(decimals)));
  return ticks;
}
