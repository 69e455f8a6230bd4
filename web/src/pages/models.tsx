// Models and prices: every enabled model with its price per unit in RUB and USD, exactly as
// the catalog states them (tables by size, quality or resolution listed row by row).
import { ErrorMessage, Loading, PageHeading } from '../components/common.js';
import { useLoad } from '../data.js';
import { formatRub, formatUsd } from '../format.js';
import { useI18n, type MessageKey } from '../i18n/index.js';
import { loadModels, type Price, type PricingEntry } from '../models.js';

const knownUnits = new Set([
  'per_1m_input_tokens',
  'per_1m_cached_input_tokens',
  'per_1m_output_tokens',
  'per_image',
  'per_1m_characters',
  'per_minute',
  'per_second',
  'per_reference',
  'per_generation',
  'per_megapixel_second',
]);

export function ModelsPage() {
  const { t, language } = useI18n();
  const models = useLoad(loadModels, []);
  return (
    <>
      <PageHeading title={t('models.title')} />
      <p>{t('models.help')}</p>
      <ErrorMessage error={models.error} />
      {models.loading && !models.data && <Loading />}
      {models.data && (
        <div class="table-scroll">
          <table class="models">
            <thead>
              <tr>
                <th scope="col">{t('common.model')}</th>
                <th scope="col">{t('models.type')}</th>
                <th scope="col">{t('models.unit')}</th>
                <th scope="col" class="number">
                  RUB
                </th>
                <th scope="col" class="number">
                  USD
                </th>
              </tr>
            </thead>
            {models.data.map((model) => {
              const rows = priceRows(model.pricing);
              return (
                <tbody key={model.id}>
                  {rows.map((row, index) => (
                    <tr key={`${row.unitKey}-${row.variant ?? ''}`}>
                      {index === 0 && (
                        <th scope="rowgroup" rowSpan={rows.length} class="model-cell">
                          <code>{model.id}</code>
                          {model.name && <div class="muted small">{model.name}</div>}
                        </th>
                      )}
                      {index === 0 && <td rowSpan={rows.length}>{model.type}</td>}
                      <td>
                        {knownUnits.has(row.unitKey) ? t(`unit.${row.unitKey}` as MessageKey) : row.unit}
                        {row.variant && <span class="muted"> · {row.variant === 'default' ? t('models.otherwise') : row.variant}</span>}
                      </td>
                      <td class="number">{formatRub(row.rub, language)}</td>
                      <td class="number">{formatUsd(row.usd, language)}</td>
                    </tr>
                  ))}
                </tbody>
              );
            })}
          </table>
        </div>
      )}
    </>
  );
}

interface PriceRow {
  unitKey: string;
  unit: string;
  variant: string | undefined;
  rub: string;
  usd: string | null;
}

/** One row per price: a plain price is one row, a table one row per entry. */
function priceRows(pricing: Record<string, PricingEntry>): PriceRow[] {
  const rows: PriceRow[] = [];
  for (const [unitKey, entry] of Object.entries(pricing)) {
    if (typeof entry.rub === 'string') rows.push({ unitKey, unit: entry.unit, variant: undefined, rub: entry.rub, usd: usdOf(entry.usd, undefined) });
    else for (const [variant, rub] of Object.entries(entry.rub)) rows.push({ unitKey, unit: entry.unit, variant, rub, usd: usdOf(entry.usd, variant) });
  }
  return rows;
}

function usdOf(usd: Price | null | undefined, variant: string | undefined): string | null {
  if (usd === null || usd === undefined) return null;
  if (typeof usd === 'string') return variant === undefined ? usd : null;
  return variant === undefined ? null : (usd[variant] ?? null);
}
