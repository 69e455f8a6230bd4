// Files: the account's stored files (results and uploads) with the permanent-quota bar; keep
// makes a file permanent (within the quota), delete removes it, download streams it.
import { useState } from 'preact/hooks';
import { api, queryString } from '../api.js';
import { ErrorMessage, Loading, PageHeading, Pager } from '../components/common.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { useCursorPages, useLoad } from '../data.js';
import { formatBytes, formatDateTime } from '../format.js';
import { useI18n } from '../i18n/index.js';

interface FileRow {
  id: number;
  purpose: string;
  media_type: string;
  filename: string | null;
  bytes: number;
  permanent: boolean;
  created_at: number;
  expires_at: number | null;
}

interface FilePage {
  data: FileRow[];
  has_more: boolean;
  next_cursor: number | string | null;
}

interface Quota {
  used_bytes: number;
  quota_bytes: number;
}

const pageSize = 50;

export function FilesPage() {
  const { t, language } = useI18n();
  const pages = useCursorPages();
  const quota = useLoad(() => api<Quota>('/cabinet/api/files/quota'), []);
  const list = useLoad(() => api<FilePage>(`/cabinet/api/files${queryString({ limit: pageSize, cursor: pages.cursor })}`), [pages.cursor]);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const act = async (action: () => Promise<unknown>) => {
    setActionError(undefined);
    try {
      await action();
    } catch (error) {
      setActionError(error);
    }
    list.reload();
    quota.reload();
  };
  return (
    <>
      <PageHeading title={t('files.title')} />
      <section aria-labelledby="quota-heading">
        <h2 id="quota-heading">{t('files.quota')}</h2>
        <ErrorMessage error={quota.error} />
        {quota.data && (
          <div class="quota">
            <label for="quota-meter">{t('files.quotaUsed', { used: formatBytes(quota.data.used_bytes, language), quota: formatBytes(quota.data.quota_bytes, language) })}</label>
            <meter id="quota-meter" min={0} max={Math.max(quota.data.quota_bytes, 1)} value={quota.data.used_bytes} high={quota.data.quota_bytes * 0.9} />
          </div>
        )}
      </section>
      <section aria-labelledby="files-heading">
        <h2 id="files-heading">{t('files.list')}</h2>
        <ErrorMessage error={list.error ?? actionError} />
        {list.loading && !list.data && <Loading />}
        {list.data && list.data.data.length === 0 && <p>{t('files.empty')}</p>}
        {list.data && list.data.data.length > 0 && (
          <div class="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('files.name')}</th>
                  <th scope="col">{t('files.purpose')}</th>
                  <th scope="col" class="number">{t('files.size')}</th>
                  <th scope="col">{t('common.date')}</th>
                  <th scope="col">{t('files.expires')}</th>
                  <th scope="col">{t('common.actions')}</th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((file) => {
                  const name = file.filename ?? `file-${file.id}`;
                  return (
                    <tr key={file.id}>
                      <td>
                        {name} <span class="muted small">{file.media_type}</span>
                      </td>
                      <td>{file.purpose}</td>
                      <td class="number">{formatBytes(file.bytes, language)}</td>
                      <td>{formatDateTime(file.created_at, language)}</td>
                      <td>{file.permanent || file.expires_at === null ? t('files.permanent') : formatDateTime(file.expires_at, language)}</td>
                      <td class="actions">
                        <a class="button" href={`/cabinet/api/files/${file.id}/content`} download={name}>
                          {t('files.download')}
                          <span class="visually-hidden"> {name}</span>
                        </a>
                        {!file.permanent && (
                          <button type="button" onClick={() => act(() => api(`/cabinet/api/files/${file.id}/keep`, { method: 'PATCH' }))}>
                            {t('files.keep')}
                            <span class="visually-hidden"> {name}</span>
                          </button>
                        )}
                        <ConfirmButton question={t('files.deleteConfirm', { name })} onConfirmed={() => act(() => api(`/cabinet/api/files/${file.id}`, { method: 'DELETE' }))}>
                          {t('common.delete')}
                          <span class="visually-hidden"> {name}</span>
                        </ConfirmButton>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
        {list.data && (
          <Pager hasPrevious={pages.hasPrevious} hasNext={list.data.has_more && list.data.next_cursor !== null} onPrevious={pages.previous} onNext={() => pages.next(String(list.data!.next_cursor))} />
        )}
      </section>
    </>
  );
}
