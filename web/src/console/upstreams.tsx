// Upstream health per route (GET /admin/v1/upstreams): for every route of the catalog, the
// calls, failures and latency of the last minutes, the pause an upstream asked for (its
// cooldown), and the last failures. The figures are the answering instance's own.
import { api } from '../api.js';
import { ErrorMessage, Loading, PageHeading, RefreshButton } from '../components/common.js';
import { useLoad } from '../data.js';
import { formatNumber } from '../format.js';
import { useI18n } from '../i18n/index.js';
import { formatMilliseconds, formatMoment } from './console-format.js';

interface UpstreamRoute {
  route: string;
  provider: string;
  upstream_model: string;
  models: string[];
  cooldown_until: string | null;
  calls: number;
  errors: number;
  latency_ms: { p50: number; p95: number; max: number } | null;
  recent_errors: { at: string; status: string; message: string; model: string; operation: string; request_id: string | null; job_id: string | null }[];
}

interface UpstreamList {
  instance: string;
  window_seconds: number;
  data: UpstreamRoute[];
}

export function UpstreamsPage() {
  const { t, language } = useI18n();
  const upstreams = useLoad(() => api<UpstreamList>('/admin/v1/upstreams'), []);
  const list = upstreams.data;
  const failing = list?.data.filter((route) => route.recent_errors.length > 0) ?? [];
  return (
    <>
      <PageHeading title={t('console.upstreams.title')}>
        <RefreshButton loaded={upstreams} />
      </PageHeading>
      <ErrorMessage error={upstreams.error} />
      {upstreams.loading && !list && <Loading />}
      {list && (
        <>
          <p>{t('console.upstreams.intro', { instance: list.instance, minutes: formatNumber(list.window_seconds / 60, language) })}</p>
          <div class="table-scroll">
            <table class="console-table upstreams">
              <caption class="visually-hidden">{t('console.upstreams.title')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('console.upstreams.route')}</th>
                  <th scope="col">{t('console.upstreams.models')}</th>
                  <th scope="col" class="number">{t('console.upstreams.calls')}</th>
                  <th scope="col" class="number">{t('console.upstreams.errors')}</th>
                  <th scope="col" class="number">{t('console.upstreams.latency')}</th>
                  <th scope="col">{t('console.upstreams.cooldown')}</th>
                </tr>
              </thead>
              <tbody>
                {list.data.map((route) => (
                  <tr key={route.route} data-route={route.route}>
                    <th scope="row">
                      <code>{route.route}</code>
                    </th>
                    <td>{route.models.join(', ')}</td>
                    <td class="number">{formatNumber(route.calls, language)}</td>
                    <td class={`number ${route.errors > 0 ? 'negative' : ''}`}>{formatNumber(route.errors, language)}</td>
                    <td class="number">
                      {route.latency_ms
                        ? `${formatMilliseconds(route.latency_ms.p50, language)} / ${formatMilliseconds(route.latency_ms.p95, language)} / ${formatMilliseconds(route.latency_ms.max, language)}`
                        : '—'}
                    </td>
                    <td>{route.cooldown_until ? <span class="negative">{t('console.upstreams.pausedUntil', { time: formatMoment(route.cooldown_until, language) })}</span> : t('console.upstreams.noCooldown')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p class="muted small">{t('console.upstreams.latencyNote')}</p>
          <h2>{t('console.upstreams.recentErrors')}</h2>
          {failing.length === 0 && <p>{t('console.upstreams.noErrors')}</p>}
          {failing.map((route) => (
            <section key={route.route} aria-label={t('console.upstreams.errorsOf', { route: route.route })} data-route={route.route}>
              <h3>
                <code>{route.route}</code>
              </h3>
              <div class="table-scroll">
                <table class="console-table upstream-errors">
                  <caption class="visually-hidden">{t('console.upstreams.errorsOf', { route: route.route })}</caption>
                  <thead>
                    <tr>
                      <th scope="col">{t('console.requests.time')}</th>
                      <th scope="col">{t('console.requests.status')}</th>
                      <th scope="col">{t('common.model')}</th>
                      <th scope="col">{t('console.upstreams.operation')}</th>
                      <th scope="col">{t('console.upstreams.message')}</th>
                      <th scope="col">{t('console.upstreams.source')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {route.recent_errors.map((note, index) => (
                      <tr key={index}>
                        <td class="nowrap">{formatMoment(note.at, language)}</td>
                        <td>{note.status}</td>
                        <td>
                          <code>{note.model}</code>
                        </td>
                        <td>{note.operation}</td>
                        <td>{note.message}</td>
                        <td>{note.request_id ?? note.job_id ? <code class="small">{note.request_id ?? note.job_id}</code> : '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </section>
          ))}
        </>
      )}
    </>
  );
}
