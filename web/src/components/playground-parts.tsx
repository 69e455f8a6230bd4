// What the playground's panels share: the model and option pickers, the quote (the server's
// price for exactly the request shown, with the idempotency key of the one job it may start),
// and a job followed to its end (progress while it runs, then its video or tracks played from
// the cabinet's content routes).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { useI18n } from '../i18n/index.js';
import { generationStatusLabel } from '../job-status.js';
import type { CatalogModel } from '../models.js';
import { formatRub } from '../format.js';
import { ErrorMessage, Link } from './common.js';

/** A choice the model may offer (effort, size, quality): absent when it offers none; empty means the default. */
export function OptionalChoice(props: { label: string; choices: readonly string[]; value: string; onChange: (value: string) => void }) {
  const { t } = useI18n();
  if (props.choices.length === 0) return null;
  return (
    <label>
      {props.label}
      <select value={props.value} onChange={(event) => props.onChange(event.currentTarget.value)}>
        <option value="">{t('playground.default')}</option>
        {props.choices.map((value) => (
          <option key={value} value={value}>
            {value}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A choice among the model's own values (durations, sizes, voices): one is always picked, the first by default. */
export function Choice(props: { label: string; choices: readonly string[]; value: string; onChange: (value: string) => void; describe?: (value: string) => string }) {
  if (props.choices.length === 0) return null;
  const value = props.choices.includes(props.value) ? props.value : props.choices[0]!;
  return (
    <label>
      {props.label}
      <select value={value} onChange={(event) => props.onChange(event.currentTarget.value)}>
        {props.choices.map((choice) => (
          <option key={choice} value={choice}>
            {props.describe ? props.describe(choice) : choice}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The value a Choice shows: the picked one while the model offers it, else its first. */
export function chosen(choices: readonly string[], value: string): string | undefined {
  return choices.includes(value) ? value : choices[0];
}

export function ModelChoice(props: { models: CatalogModel[]; value: string; onChange: (value: string) => void }) {
  const { t } = useI18n();
  return (
    <label>
      {t('common.model')}
      <select value={props.value} onChange={(event) => props.onChange(event.currentTarget.value)}>
        {props.models.map((candidate) => (
          <option key={candidate.id} value={candidate.id}>
            {candidate.id}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * 128 random bits as hex, from getRandomValues: crypto.randomUUID exists only in secure
 * contexts, and a cabinet may be opened over plain http on a local network.
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `cabinet-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

interface Quoted<Q> {
  readonly key: string;
  readonly quote: Q;
  /** Sent with the job this quote starts: a double click, or a retry after a lost answer, names the same job and is charged once. */
  readonly idempotencyKey: string;
}

/**
 * The server's quote for the request as it is now (`requestKey`): a quote holds only for the
 * request it priced, and starts at most one job — once its job is accepted it is used up, so
 * another take needs another price (and gets another idempotency key).
 */
export function useQuote<Q>(requestKey: string) {
  const [quoted, setQuoted] = useState<Quoted<Q> | undefined>(undefined);
  const current = quoted?.key === requestKey ? quoted : undefined;
  return {
    current,
    set: (quote: Q) => setQuoted({ key: requestKey, quote, idempotencyKey: newIdempotencyKey() }),
    used: () => setQuoted(undefined),
  };
}

/** The shape of the job objects the video and music routes answer. */
export interface JobObject {
  id: string;
  status: string;
  progress?: number;
  model: string;
  error?: { code?: string; message?: string } | null;
  charged_rub?: string | null;
  held_rub?: string | null;
  tracks?: { index: number; file_id: number | null }[];
}

const ended = (job: JobObject) => job.status === 'completed' || job.status === 'failed' || job.status === 'cancelled';

/** Polls `path/{id}` once a second (what the API's openai-poll-after-ms asks) until the job has ended. */
export function useJob(path: string) {
  const [job, setJob] = useState<JobObject | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    if (!job || ended(job)) return;
    let stopped = false;
    const timer = setTimeout(() => {
      api<JobObject>(`${path}/${encodeURIComponent(job.id)}`).then(
        (next) => {
          if (!stopped) setJob(next);
        },
        (reason: unknown) => {
          if (stopped) return;
          setError(reason);
          setJob({ ...job }); // polled again after the pause: a lost answer is no lost job
        },
      );
    }, 1000);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [job, path]);
  return {
    job,
    error,
    follow: (next: JobObject) => {
      setError(undefined);
      setJob(next);
    },
  };
}

/** A job's state in words and a progress bar while it runs; its video or tracks once made; its failure (nothing charged) otherwise. */
export function JobView(props: { job: JobObject | undefined; error: unknown; kind: 'video' | 'music'; label: string }) {
  const { t, language } = useI18n();
  const { job } = props;
  if (!job) return null;
  const running = !ended(job);
  const base = props.kind === 'video' ? `/cabinet/api/videos/${job.id}/content` : `/cabinet/api/audio/music/${job.id}/content`;
  return (
    <div class="job" aria-live="polite" aria-busy={running}>
      {running && (
        <p class="job-progress">
          <span>{t('playground.job.running', { status: generationStatusLabel(job.status, t), progress: job.progress ?? 0 })}</span>
          <progress max={100} value={job.status === 'queued' ? undefined : (job.progress ?? 0)} aria-label={t('playground.job.progress')} />
        </p>
      )}
      <ErrorMessage error={running ? props.error : undefined} />
      {job.status === 'completed' && (
        <>
          <p>{t('playground.job.charged', { price: formatRub(job.charged_rub, language) })}</p>
          {props.kind === 'video' ? (
            <video class="result" controls preload="metadata" src={base} aria-label={props.label} />
          ) : (
            <div class="tracks">
              {(job.tracks ?? [{ index: 0, file_id: null }]).map((track) => (
                <figure key={track.index}>
                  <figcaption>{t('gallery.track', { number: track.index + 1 })}</figcaption>
                  <audio controls preload="metadata" src={track.index === 0 ? base : `${base}?index=${track.index}`} aria-label={t('gallery.trackOf', { number: track.index + 1, prompt: props.label })} />
                </figure>
              ))}
            </div>
          )}
          <p>
            <Link to="/gallery">{t('playground.job.inGallery')}</Link>
          </p>
        </>
      )}
      {(job.status === 'failed' || job.status === 'cancelled') && (
        <p class="error" role="alert">
          {t('playground.job.failed', { message: job.error?.message ?? generationStatusLabel(job.status, t) })}
        </p>
      )}
    </div>
  );
}
