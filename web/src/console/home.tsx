// The console's first page: the installation as GET /admin/v1/system reports it — version,
// instance, the database and whether it answers, Redis, and the job queue (jobs waiting or
// running, by kind and status; the database's, so every instance's).
import { api } from '../api.js';
import { ErrorMessage, Loading, PageHeading, RefreshButton } from '../components/common.js';
import { useLoad } from '../data.js';
import { formatNumber } from '../format.js';
import { useI18n, type MessageKey } from '../i18n/index.js';
import { jobKindLabel } from './jobs.js';

interface SystemStatus {
  version: string;
  node_version: string;
  instance: string;
  database: { kind: 'sqlite' | 'postgres'; up: boolean };
  redis: 'up' | 'down' | 'not_configured';
  jobs: { queue: { kind: string; status: 'queued' | 'in_progress'; count: number }[] };
}

const databaseNames: Record<SystemStatus['database']['kind'], string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

export function ConsoleHomePage() {
  const { t, language } = useI18n();
  const system = useLoad(() => api<SystemStatus>('/admin/v1/system'), []);
  const status = system.data;
  return (
    <>
      <PageHeading title={t('console.title')}>
        <RefreshButton loaded={system} />
      </PageHeading>
      <p>{t('console.intro')}</p>
      <ErrorMessage error={system.error} />
      {system.loading && !status && <Loading />}
      {status && (
        <>
          <section aria-labelledby="system-heading">
            <h2 id="system-heading">{t('console.system')}</h2>
            <dl class="facts system">
              <dt>{t('console.system.version')}</dt>
              <dd data-field="version">{status.version}</dd>
              <dt>{t('console.system.node')}</dt>
              <dd data-field="node">{status.node_version}</dd>
              <dt>{t('console.system.instance')}</dt>
              <dd data-field="instance">{status.instance}</dd>
              <dt>{t('console.system.database')}</dt>
              <dd data-field="database">
                {databaseNames[status.database.kind] ?? status.database.kind} · <span class={status.database.up ? 'positive' : 'negative'}>{t(status.database.up ? 'console.system.up' : 'console.system.down')}</span>
              </dd>
              <dt>{t('console.system.redis')}</dt>
              <dd data-field="redis">
                {status.redis === 'not_configured' ? (
                  t('console.system.redisNotConfigured')
                ) : (
                  <span class={status.redis === 'up' ? 'positive' : 'negative'}>{t(status.redis === 'up' ? 'console.system.up' : 'console.system.down')}</span>
                )}
              </dd>
            </dl>
          </section>
          <section aria-labelledby="queue-heading">
            <h2 id="queue-heading">{t('console.system.queue')}</h2>
            {status.jobs.queue.length === 0 ? (
              <p>{t('console.system.queueEmpty')}</p>
            ) : (
              <table class="queue">
                <caption class="visually-hidden">{t('console.system.queue')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('console.jobs.kind')}</th>
                    <th scope="col">{t('console.jobs.status')}</th>
                    <th scope="col" class="number">{t('console.system.count')}</th>
                  </tr>
                </thead>
                <tbody>
                  {status.jobs.queue.map((entry) => (
                    <tr key={`${entry.kind}:${entry.status}`}>
                      <td>{jobKindLabel(entry.kind, t)}</td>
                      <td>{t(`console.jobs.status.${entry.status}` as MessageKey)}</td>
                      <td class="number">{formatNumber(entry.count, language)}</td>
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
