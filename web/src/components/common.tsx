// Small pieces every page uses: the page heading (which also sets the document title), the
// loading and error states, links inside the app, and the copy button.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { useI18n } from '../i18n/index.js';
import { followLink, hrefOf } from '../router.js';

export function PageHeading(props: { title: string; children?: ComponentChildren }) {
  const { t } = useI18n();
  useEffect(() => {
    document.title = `${props.title} · ${t('app.name')}`;
  }, [props.title, t]);
  return (
    <div class="page-heading">
      <h1>{props.title}</h1>
      {props.children}
    </div>
  );
}

export function Link(props: { to: string; children: ComponentChildren; class?: string; current?: boolean }) {
  return (
    <a href={hrefOf(props.to)} class={props.class} aria-current={props.current ? 'page' : undefined} onClick={(event) => followLink(event, props.to)}>
      {props.children}
    </a>
  );
}

export function Loading() {
  const { t } = useI18n();
  return (
    <p class="muted" role="status">
      {t('common.loading')}
    </p>
  );
}

/** An error from the API (its own message, which names the field) or anything else thrown. */
export function ErrorMessage(props: { error: unknown }) {
  const { t } = useI18n();
  if (props.error === undefined || props.error === null) return null;
  const message = props.error instanceof ApiError ? props.error.message : props.error instanceof Error ? props.error.message : String(props.error);
  return (
    <p class="error" role="alert">
      {t('common.error', { message })}
    </p>
  );
}

export function CopyButton(props: { text: string; label: string }) {
  const { t } = useI18n();
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      onClick={async () => {
        await navigator.clipboard.writeText(props.text);
        setCopied(true);
      }}
    >
      {copied ? t('common.copied') : props.label}
    </button>
  );
}

/** The previous/next buttons of a cursor-paged list. */
export function Pager(props: { hasPrevious: boolean; hasNext: boolean; onPrevious: () => void; onNext: () => void }) {
  const { t } = useI18n();
  if (!props.hasPrevious && !props.hasNext) return null;
  return (
    <nav class="pager" aria-label={t('pager.label')}>
      <button type="button" disabled={!props.hasPrevious} onClick={props.onPrevious}>
        {t('pager.previous')}
      </button>
      <button type="button" disabled={!props.hasNext} onClick={props.onNext}>
        {t('pager.next')}
      </button>
    </nav>
  );
}
