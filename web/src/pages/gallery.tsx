// Gallery: the account's generations by type. Images as thumbnails that open full size in a
// dialog, videos in a <video> player and music tracks in <audio> players, all streamed from
// the content route (the browser sends the session cookie and asks for byte ranges itself);
// prompt, model, price and date under each; keep (the files become permanent) and delete.
import { useRef, useState } from 'preact/hooks';
import { api, queryString } from '../api.js';
import { ErrorMessage, Loading, PageHeading, Pager } from '../components/common.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { useCursorPages, useLoad } from '../data.js';
import { formatDateTime, formatRub } from '../format.js';
import { useI18n, type MessageKey } from '../i18n/index.js';
import { generationStatusLabel } from '../job-status.js';

export interface Generation {
  id: number;
  type: 'image' | 'video' | 'music';
  model: string;
  prompt: string | null;
  status: string;
  charged_rub: string | null;
  created_at: number;
  file_ids: number[];
  job_id: string | null;
  /** One per file_ids entry: the stored file, or null once it expired or was deleted. */
  files: ({ id: number; permanent: boolean; expires_at: number | null; media_type: string; bytes: number } | null)[];
}

interface GenerationPage {
  data: Generation[];
  has_more: boolean;
  next_cursor: number | string | null;
}

const types = ['image', 'video', 'music'] as const;
type GenerationType = (typeof types)[number];
const pageSize = 24;

export const contentUrl = (generation: Pick<Generation, 'type' | 'id'>, index = 0) =>
  `/cabinet/api/generations/${generation.type}/${generation.id}/content${index === 0 ? '' : `?index=${index}`}`;

export function GalleryPage() {
  const { t } = useI18n();
  const [type, setType] = useState<GenerationType>('image');
  const pages = useCursorPages();
  const [actionError, setActionError] = useState<unknown>(undefined);
  const list = useLoad(() => api<GenerationPage>(`/cabinet/api/generations${queryString({ type, limit: pageSize, cursor: pages.cursor })}`), [type, pages.cursor]);
  const [opened, setOpened] = useState<Generation | undefined>(undefined);
  const dialog = useRef<HTMLDialogElement>(null);

  const act = async (action: () => Promise<unknown>) => {
    setActionError(undefined);
    try {
      await action();
      list.reload();
    } catch (error) {
      setActionError(error);
    }
  };
  return (
    <>
      <PageHeading title={t('gallery.title')} />
      <div class="tabs" role="group" aria-label={t('gallery.types')}>
        {types.map((candidate) => (
          <button
            key={candidate}
            type="button"
            aria-pressed={candidate === type}
            onClick={() => {
              pages.reset();
              setType(candidate);
            }}
          >
            {t(`gallery.type.${candidate}` as MessageKey)}
          </button>
        ))}
      </div>
      <ErrorMessage error={list.error ?? actionError} />
      {list.loading && !list.data && <Loading />}
      {list.data && list.data.data.length === 0 && <p>{t('gallery.empty')}</p>}
      {list.data && list.data.data.length > 0 && (
        <ul class={`gallery gallery-${type}`}>
          {list.data.data.map((generation) => (
            <li key={`${generation.type}-${generation.id}`} class="card">
              <Media
                generation={generation}
                onOpen={() => {
                  setOpened(generation);
                  dialog.current?.showModal();
                }}
              />
              <GenerationFacts generation={generation} />
              <div class="actions">
                {available(generation) && generation.files.every((file) => file?.permanent) && <span class="badge">{t('gallery.kept')}</span>}
                {available(generation) && !generation.files.every((file) => file?.permanent) && (
                  <button type="button" onClick={() => act(() => api(`/cabinet/api/generations/${generation.type}/${generation.id}/keep`, { method: 'PATCH' }))}>
                    {t('gallery.keep')}
                  </button>
                )}
                {available(generation) && (
                  <ConfirmButton question={t('gallery.deleteConfirm')} onConfirmed={() => act(() => api(`/cabinet/api/generations/${generation.type}/${generation.id}`, { method: 'DELETE' }))}>
                    {t('common.delete')}
                  </ConfirmButton>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
      {list.data && (
        <Pager
          hasPrevious={pages.hasPrevious}
          hasNext={list.data.has_more && list.data.next_cursor !== null}
          onPrevious={pages.previous}
          onNext={() => pages.next(String(list.data!.next_cursor))}
        />
      )}
      <dialog ref={dialog} class="viewer" aria-label={t('gallery.fullSize')} onClose={() => setOpened(undefined)}>
        {opened && (
          <>
            <img src={contentUrl(opened)} alt={opened.prompt ?? t('gallery.imageAlt', { id: opened.id })} />
            <p>{opened.prompt}</p>
          </>
        )}
        <form method="dialog">
          <button type="submit">{t('common.close')}</button>
        </form>
      </dialog>
    </>
  );
}

/** Completed and its files still stored (they expire unless kept; delete removes them). */
function available(generation: Generation): boolean {
  return generation.status === 'completed' && generation.files.length > 0 && generation.files.every((file) => file !== null);
}

function Media(props: { generation: Generation; onOpen: () => void }) {
  const { t } = useI18n();
  const { generation } = props;
  if (generation.status !== 'completed' || generation.file_ids.length === 0) {
    return <p class="placeholder">{t('gallery.status', { status: generationStatusLabel(generation.status, t) })}</p>;
  }
  if (!available(generation)) return <p class="placeholder">{t('gallery.gone')}</p>;
  const label = generation.prompt ?? t('gallery.imageAlt', { id: generation.id });
  if (generation.type === 'image') {
    return (
      <button type="button" class="thumbnail" onClick={props.onOpen} aria-label={t('gallery.open', { prompt: label })}>
        <img src={contentUrl(generation)} alt="" loading="lazy" />
      </button>
    );
  }
  if (generation.type === 'video') {
    return <video controls preload="metadata" src={contentUrl(generation)} aria-label={label} />;
  }
  return (
    <div class="tracks">
      {generation.file_ids.map((fileId, index) => (
        <figure key={fileId}>
          <figcaption>{t('gallery.track', { number: index + 1 })}</figcaption>
          <audio controls preload="metadata" src={contentUrl(generation, index)} aria-label={t('gallery.trackOf', { number: index + 1, prompt: label })} />
        </figure>
      ))}
    </div>
  );
}

function GenerationFacts(props: { generation: Generation }) {
  const { t, language } = useI18n();
  const { generation } = props;
  return (
    <dl class="facts">
      <dt>{t('gallery.prompt')}</dt>
      <dd class="prompt">{generation.prompt ?? '—'}</dd>
      <dt>{t('common.model')}</dt>
      <dd>
        <code>{generation.model}</code>
      </dd>
      <dt>{t('common.price')}</dt>
      <dd>{formatRub(generation.charged_rub, language)}</dd>
      <dt>{t('common.date')}</dt>
      <dd>{formatDateTime(generation.created_at, language)}</dd>
    </dl>
  );
}
