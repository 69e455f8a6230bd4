// The playground's video panels. A video from a prompt (up to 30,000 characters, the spec's bound) with the
// model's durations and sizes and up to its number of reference images (uploads sent as data:
// URLs, gallery images by their file id, so the price route and the job see the same body); an upscale of an uploaded MP4 or of a video
// from the gallery (its content fetched from the cabinet and sent as the upload). Each is
// priced by the server first; the job is submitted with the quote's idempotency key, followed
// to its end and played here, and it is in the gallery.
import { useMemo, useState } from 'preact/hooks';
import { api, send } from '../api.js';
import { ErrorMessage, Link } from '../components/common.js';
import { Choice, chosen, JobView, ModelChoice, type JobObject, useJob, useQuote } from '../components/playground-parts.js';
import { useAction, useLoad } from '../data.js';
import { formatDecimal, formatRub, formatUsd } from '../format.js';
import { useI18n } from '../i18n/index.js';
import { capabilityList, type CatalogModel } from '../models.js';
import type { Generation } from './gallery.js';
import { contentUrl } from './gallery.js';

/** The seed's create page takes prompts this long (and /v1/videos accepts them). */
const maxVideoPrompt = 30_000;

interface VideoQuote {
  seconds: string;
  size: string;
  references: number;
  price_rub: string;
  price_usd: string | null;
}

/** A picked file as a data: URL (the reference images travel inside the JSON body). */
function dataUrlOf(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error(file.name));
    reader.readAsDataURL(file);
  });
}

const fileIdentity = (file: File) => `${file.name}:${file.size}:${file.lastModified}`;

/** A reference image as input_references takes it: a data: URL of an upload, or a stored file's id. */
interface Reference {
  readonly value: string;
  /** What the page shows of it (an upload shows its data: URL itself). */
  readonly preview: string;
  readonly name: string;
  /** What makes the request another one (the quote holds only for the same references). */
  readonly identity: string;
}

const isAvailable = (generation: Generation) => generation.status === 'completed' && generation.files.length > 0 && generation.files.every((file) => file !== null);

export function VideoGeneration(props: { models: CatalogModel[] }) {
  const { t, language } = useI18n();
  const [model, setModel] = useState(props.models[0]?.id ?? '');
  const selected = props.models.find((candidate) => candidate.id === model);
  const durations = capabilityList(selected, 'durations');
  const sizes = capabilityList(selected, 'sizes');
  const maxReferences = selected?.capabilities?.references === true ? Number(selected.capabilities.max_references ?? 1) : 0;
  const [prompt, setPrompt] = useState('');
  const [seconds, setSeconds] = useState('');
  const [size, setSize] = useState('');
  const [uploads, setUploads] = useState<Reference[]>([]);
  const [galleryImage, setGalleryImage] = useState('');
  const images = useLoad(() => (maxReferences > 0 ? api<GenerationPage>('/cabinet/api/generations?type=image&limit=24') : Promise.resolve({ data: [] })), [maxReferences > 0]);
  const galleryImages = (images.data?.data ?? []).filter(isAvailable);
  const picked = galleryImages.find((generation) => String(generation.id) === galleryImage);
  // A gallery image is named by its stored file's id: nothing is uploaded again.
  const fromGallery: Reference[] = picked ? [{ value: String(picked.file_ids[0]), preview: contentUrl(picked), name: picked.prompt ?? String(picked.id), identity: `file-${picked.file_ids[0]}` }] : [];
  const usedReferences = [...uploads, ...fromGallery].slice(0, maxReferences);
  const request = useMemo(() => {
    const body: Record<string, unknown> = { model, prompt: prompt.trim() };
    const pickedSeconds = chosen(durations, seconds);
    const pickedSize = chosen(sizes, size);
    if (pickedSeconds !== undefined) body.seconds = pickedSeconds;
    if (pickedSize !== undefined) body.size = pickedSize;
    if (usedReferences.length > 0) body.input_references = usedReferences.map((reference) => reference.value);
    return body;
  }, [model, prompt, seconds, size, durations.join(), sizes.join(), uploads, picked, maxReferences]);
  const requestKey = JSON.stringify({ ...request, input_references: usedReferences.map((reference) => reference.identity) });
  const quote = useQuote<VideoQuote>(requestKey);
  const { busy, error, run } = useAction();
  const job = useJob('/cabinet/api/videos');

  const pickReferences = (files: FileList | null) =>
    run(async () => {
      const chosenFiles = Array.from(files ?? []).slice(0, maxReferences);
      setUploads(await Promise.all(chosenFiles.map(async (file) => ({ value: await dataUrlOf(file), preview: '', name: file.name, identity: fileIdentity(file) }))));
    });

  return (
    <section aria-labelledby="video-heading" class="panel">
      <h2 id="video-heading">{t('playground.video')}</h2>
      {props.models.length === 0 ? (
        <p>{t('playground.video.none')}</p>
      ) : (
        <form
          class="stacked"
          onSubmit={(event) => {
            event.preventDefault();
            void run(async () => quote.set(await api<VideoQuote>('/cabinet/api/videos/price', { method: 'POST', body: request })));
          }}
        >
          <ModelChoice models={props.models} value={model} onChange={setModel} />
          <label>
            {t('playground.prompt')}
            <textarea rows={4} value={prompt} required maxLength={maxVideoPrompt} aria-describedby="video-prompt-length" onInput={(event) => setPrompt(event.currentTarget.value)} />
          </label>
          <p id="video-prompt-length" class="muted small">
            {t('playground.video.promptLength', { used: formatDecimal(String(prompt.length), language), max: formatDecimal(String(maxVideoPrompt), language) })}
          </p>
          <div class="row">
            <Choice label={t('playground.video.seconds')} choices={durations} value={seconds} onChange={setSeconds} describe={(value) => t('playground.video.secondsValue', { seconds: value })} />
            <Choice label={t('playground.size')} choices={sizes} value={size} onChange={setSize} />
          </div>
          {maxReferences > 0 && (
            <label>
              {t('playground.video.references', { max: maxReferences })}
              <input type="file" accept="image/png,image/jpeg,image/webp" multiple={maxReferences > 1} onChange={(event) => void pickReferences(event.currentTarget.files)} />
            </label>
          )}
          {maxReferences > 0 && galleryImages.length > 0 && (
            <label>
              {t('playground.video.galleryReference')}
              <select value={galleryImage} onChange={(event) => setGalleryImage(event.currentTarget.value)}>
                <option value="">{t('playground.video.noGalleryReference')}</option>
                {galleryImages.map((generation) => (
                  <option key={generation.id} value={String(generation.id)}>
                    {(generation.prompt ?? String(generation.id)).slice(0, 60)}
                  </option>
                ))}
              </select>
            </label>
          )}
          {usedReferences.length > 0 && (
            <ul class="generated">
              {usedReferences.map((reference, index) => (
                <li key={index}>
                  <img src={reference.preview || reference.value} alt={t('playground.video.referenceAlt', { number: index + 1, name: reference.name })} />
                </li>
              ))}
            </ul>
          )}
          <QuoteActions
            busy={busy}
            disabled={request.prompt === ''}
            quoted={quote.current && t('playground.video.quote', { seconds: quote.current.quote.seconds, size: quote.current.quote.size, references: quote.current.quote.references, price: formatRub(quote.current.quote.price_rub, language), usd: formatUsd(quote.current.quote.price_usd, language) })}
            price={quote.current && formatRub(quote.current.quote.price_rub, language)}
            onGenerate={() =>
              run(async () => {
                const current = quote.current!;
                job.follow(await api<JobObject>('/cabinet/api/videos', { method: 'POST', body: { ...request, idempotency_key: current.idempotencyKey } }));
                quote.used();
              })
            }
          />
          <ErrorMessage error={error ?? images.error} />
        </form>
      )}
      <JobView job={job.job} error={job.error} kind="video" label={String(request.prompt || t('playground.video'))} />
    </section>
  );
}

/** "Get the price", then the quote and "Generate for …" for exactly that request. */
export function QuoteActions(props: { busy: boolean; disabled: boolean; quoted: string | undefined; price: string | undefined; onGenerate: () => void }) {
  const { t } = useI18n();
  return (
    <>
      <div class="actions">
        <button type="submit" disabled={props.busy || props.disabled}>
          {t('playground.quote')}
        </button>
        {props.price !== undefined && (
          <button type="button" class="primary" disabled={props.busy} onClick={props.onGenerate}>
            {t('playground.generateFor', { price: props.price })}
          </button>
        )}
      </div>
      {props.quoted !== undefined && (
        <p class="quote" role="status">
          {props.quoted}
        </p>
      )}
    </>
  );
}

interface UpscaleQuote {
  seconds: number;
  input_size: string;
  size: string;
  price_rub: string;
  price_usd: string | null;
}

interface GenerationPage {
  data: Generation[];
}

const factors = ['1.5', '2', '2.5', '3'];

export function VideoUpscale(props: { models: CatalogModel[] }) {
  const { t, language } = useI18n();
  const [model, setModel] = useState(props.models[0]?.id ?? '');
  const [source, setSource] = useState<'upload' | 'gallery'>('upload');
  const [upload, setUpload] = useState<File | undefined>(undefined);
  const [fromGallery, setFromGallery] = useState('');
  const [factor, setFactor] = useState(factors[0]!);
  const videos = useLoad(
    () => (source === 'gallery' ? api<GenerationPage>('/cabinet/api/generations?type=video&limit=50') : Promise.resolve({ data: [] })),
    [source],
  );
  const ready = (videos.data?.data ?? []).filter(isAvailable);
  const requestKey = JSON.stringify({ model, factor, source, video: source === 'upload' ? upload && fileIdentity(upload) : fromGallery });
  const quote = useQuote<UpscaleQuote>(requestKey);
  const { busy, error, run } = useAction();
  const job = useJob('/cabinet/api/videos');

  /** The form both routes take: the video as an upload (a gallery video fetched from its content route first). */
  const form = async (idempotencyKey?: string): Promise<FormData> => {
    let video = upload;
    if (source === 'gallery') {
      const picked = ready.find((generation) => String(generation.id) === fromGallery);
      if (!picked) throw new Error(t('playground.upscale.pickVideo'));
      video = new File([await (await send(contentUrl(picked))).blob()], `video-${picked.id}.mp4`, { type: 'video/mp4' });
    }
    if (!video) throw new Error(t('playground.upscale.pickVideo'));
    const body = new FormData();
    body.set('model', model);
    body.set('upscale_factor', factor);
    if (idempotencyKey) body.set('idempotency_key', idempotencyKey);
    body.set('video', video, video.name);
    return body;
  };

  return (
    <section aria-labelledby="upscale-heading" class="panel">
      <h2 id="upscale-heading">{t('playground.upscale')}</h2>
      {props.models.length === 0 ? (
        <p>{t('playground.upscale.none')}</p>
      ) : (
        <form
          class="stacked"
          onSubmit={(event) => {
            event.preventDefault();
            void run(async () => quote.set(await api<UpscaleQuote>('/cabinet/api/videos/upscale/price', { method: 'POST', body: await form() })));
          }}
        >
          <ModelChoice models={props.models} value={model} onChange={setModel} />
          <fieldset>
            <legend>{t('playground.upscale.source')}</legend>
            <label class="inline">
              <input type="radio" name="upscale-source" checked={source === 'upload'} onChange={() => setSource('upload')} />
              {t('playground.upscale.fromUpload')}
            </label>
            <label class="inline">
              <input type="radio" name="upscale-source" checked={source === 'gallery'} onChange={() => setSource('gallery')} />
              {t('playground.upscale.fromGallery')}
            </label>
          </fieldset>
          {source === 'upload' ? (
            <label>
              {t('playground.upscale.file')}
              <input type="file" accept="video/mp4" onChange={(event) => setUpload(event.currentTarget.files?.[0])} />
            </label>
          ) : (
            <label>
              {t('playground.upscale.galleryVideo')}
              <select value={fromGallery} onChange={(event) => setFromGallery(event.currentTarget.value)}>
                <option value="">{ready.length === 0 ? t('playground.upscale.noVideos') : t('playground.upscale.choose')}</option>
                {ready.map((generation) => (
                  <option key={generation.id} value={String(generation.id)}>
                    {`${generation.model}: ${(generation.prompt ?? String(generation.id)).slice(0, 60)}`}
                  </option>
                ))}
              </select>
            </label>
          )}
          <Choice label={t('playground.upscale.factor')} choices={factors} value={factor} onChange={setFactor} describe={(value) => `×${formatDecimal(value, language)}`} />
          <QuoteActions
            busy={busy}
            disabled={source === 'upload' ? upload === undefined : fromGallery === ''}
            quoted={quote.current && t('playground.upscale.quote', { from: quote.current.quote.input_size, to: quote.current.quote.size, seconds: formatDecimal(String(quote.current.quote.seconds), language), price: formatRub(quote.current.quote.price_rub, language), usd: formatUsd(quote.current.quote.price_usd, language) })}
            price={quote.current && formatRub(quote.current.quote.price_rub, language)}
            onGenerate={() =>
              run(async () => {
                const current = quote.current!;
                job.follow(await api<JobObject>('/cabinet/api/videos/upscale', { method: 'POST', body: await form(current.idempotencyKey) }));
                quote.used();
              })
            }
          />
          <ErrorMessage error={error ?? videos.error} />
        </form>
      )}
      <JobView job={job.job} error={job.error} kind="video" label={t('playground.upscale')} />
      {job.job === undefined && (
        <p class="muted small">
          {t('playground.upscale.note')} <Link to="/history">{t('nav.history')}</Link>
        </p>
      )}
    </section>
  );
}
