// A bar chart drawn as SVG (no chart library): one bar per item, its height proportional to
// its value. The values are the server's exact rouble strings; they are turned into numbers
// here only to size the bars, and the labels show the strings themselves. Screen readers get
// the same figures as a table (in a <details> under the chart).
import { useI18n } from '../i18n/index.js';
import { formatRub } from '../format.js';

export interface Bar {
  readonly label: string;
  /** Exact decimal string (roubles). */
  readonly value: string;
}

const height = 160;
const labelSpace = 36;
const top = 8;

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
  const width = Math.max(slot * bars.length, 200);
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      {bars.length === 0 ? (
        <p class="muted">{t('chart.empty')}</p>
      ) : props.layout === 'rows' ? (
        <RowChart bars={bars} magnitudes={magnitudes} largest={largest} title={props.title} />
      ) : (
        <svg viewBox={`0 0 ${width} ${height + labelSpace}`} role="img" aria-label={props.title} preserveAspectRatio="xMinYMin meet">
          <line x1="0" y1={height} x2={width} y2={height} class="chart-axis" />
          {bars.map((bar, index) => {
            const barHeight = largest === 0 ? 0 : Math.round((magnitudes[index]! / largest) * (height - top));
            const x = index * slot + 4;
            return (
              <g key={bar.label}>
                <rect x={x} y={height - barHeight} width={slot - 8} height={Math.max(barHeight, magnitudes[index]! > 0 ? 1 : 0)} class="chart-bar">
                  <title>{`${bar.label}: ${formatRub(bar.value, language)}`}</title>
                </rect>
                {index % every === 0 && (
                  <text x={x + (slot - 8) / 2} y={height + 14} text-anchor="middle" class="chart-label">
                    {shortLabel(bar.label)}
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
                  <td>{bar.label}</td>
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

/** Days as "MM-DD", model ids cut to their last part: the full label is in the bar's title and the table. */
function shortLabel(label: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(label)) return label.slice(5);
  const last = label.split('/').pop() ?? label;
  return last.length > 6 ? `${last.slice(0, 5)}…` : last;
}
