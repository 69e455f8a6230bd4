// Small pieces every page uses: the page heading (which also sets the document title), the
// loading and error states, links inside the app, figures, and the copy button.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import type { Loaded } from '../data.js';
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

/** `current`: 'page' for the page shown, 'true' for the listed page it was reached from. */
export function Link(props: { to: string; children: ComponentChildren; class?: string; current?: 'page' | 'true' }) {
  return (
    <a href={hrefOf(props.to)} class={props.class} aria-current={props.current} onClick={(event) => followLink(event, props.to)}>
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

/** Loads the page's data again (disabled while a load runs). */
export function RefreshButton(props: { loaded: Loaded<unknown> }) {
  const { t } = useI18n();
  return (
    <button type="button" onClick={props.loaded.reload} disabled={props.loaded.loading}>
      {t('console.system.refresh')}
    </button>
  );
}

/**
 * What a page loaded (useLoad): its error, a spinner until the first answer, then `children`
 * with the data (a reload keeps the last data on screen while it runs).
 */
export function LoadedView<T>(props: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  const { data, error, loading } = props.loaded;
  return (
    <>
      <ErrorMessage error={error} />
      {loading && data === undefined && <Loading />}
      {data !== undefined && props.children(data)}
    </>
  );
}

/**
 * An error from the API (its own message) or anything else thrown. `fields` maps the API's
 * field names to the form's labels: an error whose `param` is one of them is shown under that
 * label, so the user sees which field to correct (`id` lets the field point at the message).
 */
export function ErrorMessage(props: { error: unknown; fields?: Record<string, string>; id?: string }) {
  const { t } = useI18n();
  if (props.error === undefined || props.error === null) return null;
  let message = props.error instanceof ApiError ? props.error.message : props.error instanceof Error ? props.error.message : String(props.error);
  const field = fieldOf(props.error, props.fields);
  if (field !== undefined) message = t('common.fieldError', { field: props.fields![field]!, message });
  return (
    <p class="error" role="alert" id={props.id}>
      {t('common.error', { message })}
    </p>
  );
}

/** The form field (a key of `fields`) an API error names, if it names one of them. */
export function fieldOf(error: unknown, fields: Record<string, string> | undefined): string | undefined {
  if (!(error instanceof ApiError) || error.param === null || !fields) return undefined;
  return Object.hasOwn(fields, error.param) ? error.param : undefined;
}

/** One figure of a `<dl class="figures">`: a label and its value (an amount as the API gave it). */
export function Figure(props: { label: string; value: string }) {
  return (
    <div class="figure">
      <dt>{props.label}</dt>
      <dd>{props.value}</dd>
    </div>
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
