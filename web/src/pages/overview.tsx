// Overview: balance, held and available, spend today / 7 / 30 days, and spend by day and by
// model as bar charts — every figure as GET /cabinet/api/overview gives it (from the ledger
// and the usage records).
import type { Overview } from '../../../src/cabinet-api/answers.js';
import { api } from '../api.js';
import { BarChart } from '../components/bar-chart.js';
import { ErrorMessage, Figure, Link, Loading, PageHeading } from '../components/common.js';
import { useLoad } from '../data.js';
import { formatNumber, formatRub } from '../format.js';
import { useI18n } from '../i18n/index.js';

export function OverviewPage() {
  const { t, language } = useI18n();
  const overview = useLoad(() => api<Overview>('/cabinet/api/overview'), []);
  const data = overview.data;
  return (
    <>
      <PageHeading title={t('overview.title')} />
      <ErrorMessage error={overview.error} />
      {overview.loading && !data && <Loading />}
      {data && (
        <>
          <section aria-labelledby="balance-heading">
            <h2 id="balance-heading">{t('overview.balance')}</h2>
            <dl class="figures">
              <Figure label={t('overview.balanceTotal')} value={formatRub(data.balance_rub, language)} />
              <Figure label={t('overview.held')} value={formatRub(data.held_rub, language)} />
              <Figure label={t('overview.available')} value={formatRub(data.available_rub, language)} />
            </dl>
          </section>
          <section aria-labelledby="spend-heading">
            <h2 id="spend-heading">{t('overview.spend')}</h2>
            <dl class="figures">
              <Figure label={t('overview.today')} value={formatRub(data.spend.today_rub, language)} />
              <Figure label={t('overview.days7')} value={formatRub(data.spend.days_7_rub, language)} />
              <Figure label={t('overview.days30')} value={formatRub(data.spend.days_30_rub, language)} />
            </dl>
            <p>
              <Link to="/history">{t('overview.toHistory')}</Link>
            </p>
          </section>
          <section aria-labelledby="charts-heading" class="charts">
            <h2 id="charts-heading">{t('overview.charts')}</h2>
            <BarChart title={t('overview.byDay')} bars={data.by_day.map((day) => ({ label: day.day, value: day.rub }))} labelEvery={5} />
            <BarChart title={t('overview.byModel')} layout="rows" bars={data.by_model.map((row) => ({ label: row.model ?? t('overview.noModel'), value: row.rub }))} />
            {data.by_model.length > 0 && (
              <table>
                <caption>{t('overview.byModelTable')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('common.model')}</th>
                    <th scope="col" class="number">{t('overview.requests')}</th>
                    <th scope="col" class="number">{t('common.amount')}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.by_model.map((row) => (
                    <tr key={row.model ?? ''}>
                      <td>{row.model === null ? t('overview.noModel') : <code>{row.model}</code>}</td>
                      <td class="number">{formatNumber(row.requests, language)}</td>
                      <td class="number">{formatRub(row.rub, language)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </>
      )}
    </>
  );
}
