// The console's first page: what GET /admin/v1/system says about this installation.
import { api } from '../api.js';
import { ErrorMessage, Loading, PageHeading } from '../components/common.js';
import { useLoad } from '../data.js';
import { useI18n } from '../i18n/index.js';

export function ConsoleHomePage() {
  const { t } = useI18n();
  const system = useLoad(() => api<Record<string, unknown>>('/admin/v1/system'), []);
  return (
    <>
      <PageHeading title={t('console.title')} />
      <p>{t('console.intro')}</p>
      <ErrorMessage error={system.error} />
      {system.loading && !system.data && <Loading />}
      {system.data && (
        <section aria-labelledby="system-heading">
          <h2 id="system-heading">{t('console.system')}</h2>
          <pre class="json">{JSON.stringify(system.data, null, 2)}</pre>
        </section>
      )}
    </>
  );
}
