// A bar chart drawn as SVG (no chart library): one bar per item, its height proportional to
// its value. The values are the server's exact rouble strings; they are turned into numbers
// here only to size the bars, and the labels show the strings themselves. Columns stand on a
// value axis in RUB (a few round ticks, chart-axis.ts) and, for days, under dates written in
// the page's language. Screen readers get the same figures as a table (in a <details> under
// the chart).
import { axisTicks } from '../chart-axis.js';
import { useI18n } from '../i18n/index.js';
import type { Language } from '../i18n/language.js';
import { formatDay, formatNumber, formatRub } from '../format.js';

export interface Bar {
  readonly label: string;
  /** Exact decimal string (roubles). */
  readonly value: string;
}

const height = 160;
const labelSpace = 36;
const top = 8;
/** Room left of the columns for the value axis's labels ("1,500 ₽"). */
const axisSpace = 64;

export function BarChart(props: {
  bars: readonly Bar[];
  title: string;
  /** Show every n-th label under the axis (long series). */
  labelEvery?: number;
  /** `rows`: one labelled horizontal bar per item (long labels such as model ids). */
  layout?: 'columns' | 'rows';
}) {
  const { language, t } = useI18n();
  const { bars } = props;
  const every = props.labelEvery ?? 1;
  const magnitudes = bars.map((bar) => Math.max(0, Number(bar.value))); // sizing only, never summed or shown
  const largest = Math.max(0, ...magnitudes);
  const slot = 28;
  const width = axisSpace + Math.max(slot * bars.length, 200);
  // The bars are scaled to the top tick, so that each stands against the axis's amounts.
  const ticks = axisTicks(largest);
  const scaleTop = ticks.at(-1)!;
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      {bars.length === 0 ? (
        <p class="muted">{t('chart.empty')}</p>
      ) : props.layout === 'rows' ? (
        <RowChart bars={bars} magnitudes={magnitudes} largest={largest} title={props.title} />
      ) : (
        <svg viewBox={`0 0 ${width} ${height + labelSpace}`} role="img" aria-label={props.title} preserveAspectRatio="xMinYMin meet">
          {ticks.map((tick) => {
            // Nothing spent: the one tick, 0, on the baseline.
            const y = scaleTop === 0 ? height : height - Math.round((tick / scaleTop) * (height - top));
            return (
              <g key={tick} class="chart-tick">
                {tick > 0 && <line x1={axisSpace} y1={y} x2={width} y2={y} class="chart-grid" />}
                <text x={axisSpace - 6} y={y + 4} text-anchor="end" class="chart-label chart-y-label">
                  {`${formatNumber(tick, language)}\u00a0₽`}
                </text>
              </g>
            );
          })}
          <line x1={axisSpace} y1={top} x2={axisSpace} y2={height} class="chart-axis" />
          <line x1={axisSpace} y1={height} x2={width} y2={height} class="chart-axis" />
          {bars.map((bar, index) => {
            const barHeight = scaleTop === 0 ? 0 : Math.round((magnitudes[index]! / scaleTop) * (height - top));
            const x = axisSpace + index * slot + 4;
            return (
              <g key={bar.label}>
                <rect x={x} y={height - barHeight} width={slot - 8} height={Math.max(barHeight, magnitudes[index]! > 0 ? 1 : 0)} class="chart-bar">
                  <title>{`${longLabel(bar.label, language)}: ${formatRub(bar.value, language)}`}</title>
                </rect>
                {index % every === 0 && (
                  <text x={x + (slot - 8) / 2} y={height + 14} text-anchor="middle" class="chart-label chart-x-label">
                    {shortLabel(bar.label, language)}
                  </text>
                )}
              </g>
            );
          })}
        </svg>
      )}
      {bars.length > 0 && (
        <details>
          <summary>{t('chart.table')}</summary>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('chart.item')}</th>
                <th scope="col" class="number">{t('chart.amount')}</th>
              </tr>
            </thead>
            <tbody>
              {bars.map((bar) => (
                <tr key={bar.label}>
                  <td>{longLabel(bar.label, language)}</td>
                  <td class="number">{formatRub(bar.value, language)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </figure>
  );
}

const rowHeight = 26;
const rowLabelWidth = 190;
const rowWidth = 640;
const rowValueSpace = 110;

function RowChart(props: { bars: readonly Bar[]; magnitudes: number[]; largest: number; title: string }) {
  const { language } = useI18n();
  const room = rowWidth - rowLabelWidth - rowValueSpace;
  return (
    <svg class="chart-rows" viewBox={`0 0 ${rowWidth} ${props.bars.length * rowHeight + 4}`} role="img" aria-label={props.title} preserveAspectRatio="xMinYMin meet">
      {props.bars.map((bar, index) => {
        const length = props.largest === 0 ? 0 : Math.max(props.magnitudes[index]! > 0 ? 1 : 0, Math.round((props.magnitudes[index]! / props.largest) * room));
        const y = index * rowHeight + 2;
        return (
          <g key={bar.label}>
            <text x={rowLabelWidth - 8} y={y + rowHeight / 2 + 4} text-anchor="end" class="chart-row-label">
              {bar.label.length > 26 ? `${bar.label.slice(0, 25)}…` : bar.label}
            </text>
            <rect x={rowLabelWidth} y={y + 4} width={length} height={rowHeight - 8} class="chart-bar">
              <title>{`${bar.label}: ${formatRub(bar.value, language)}`}</title>
            </rect>
            <text x={rowLabelWidth + length + 6} y={y + rowHeight / 2 + 4} class="chart-row-label">
              {formatRub(bar.value, language)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

const isDay = (label: string) => /^\d{4}-\d{2}-\d{2}$/.test(label);

/** Days in the page's language ("28 Nov", "28 нояб."), model ids cut to their last part: the full label is in the bar's title and the table. */
function shortLabel(label: string, language: Language): string {
  if (isDay(label)) return formatDay(label, language);
  const last = label.split('/').pop() ?? label;
  return last.length > 6 ? `${last.slice(0, 5)}…` : last;
}

/** A day in the page's language with its year (the table, the bar's title); other labels as they are. */
function longLabel(label: string, language: Language): string {
  if (!isDay(label)) return label;
  return `${formatDay(label, language)} ${label.slice(0, 4)}`;
}
