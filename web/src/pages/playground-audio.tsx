// The playground's sound panels. Music: a song (described, or its own lyrics with a style and a
// title) or an instrumental, a job submitted with the quote's idempotency key and its tracks
// played here once made (and in the gallery). Speech: the text, a voice and a format, played
// from a blob: URL (the cabinet's CSP allows media from the page's origin and blob: only) and
// offered as a download. Transcription: an uploaded audio file, measured and priced by the
// server before it is transcribed. Every one is priced by its route first.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, send } from '../api.js';
import { ErrorMessage, Link } from '../components/common.js';
import { Choice, chosen, JobView, ModelChoice, type JobObject, useJob, useQuote } from '../components/playground-parts.js';
import { useAction } from '../data.js';
import { formatDecimal, formatRub, formatUsd } from '../format.js';
import { useI18n } from '../i18n/index.js';
import { capabilityList, type CatalogModel } from '../models.js';
import { QuoteActions } from './playground-video.js';

interface PriceQuote {
  price_rub: string;
  price_usd: string | null;
}

export function MusicGeneration(props: { models: CatalogModel[] }) {
  const { t, language } = useI18n();
  const [model, setModel] = useState(props.models[0]?.id ?? '');
  const selected = props.models.find((candidate) => candidate.id === model);
  const instrumental = selected?.capabilities?.instrumental === true;
  const [mode, setMode] = useState<'simple' | 'custom'>('simple');
  const [prompt, setPrompt] = useState('');
  const [lyrics, setLyrics] = useState('');
  const [style, setStyle] = useState('');
  const [title, setTitle] = useState('');
  const ownLyrics = !instrumental && mode === 'custom';
  const request = useMemo(() => {
    const body: Record<string, unknown> = { model, mode: ownLyrics ? 'custom' : 'simple', style: style.trim(), title: title.trim() };
    if (prompt.trim() !== '' && !ownLyrics) body.prompt = prompt.trim();
    if (ownLyrics && lyrics.trim() !== '') body.lyrics = lyrics.trim();
    return body;
  }, [model, ownLyrics, prompt, lyrics, style, title]);
  const complete = ownLyrics ? request.lyrics !== undefined : request.prompt !== undefined || (instrumental && request.style !== '' && request.title !== '');
  const quote = useQuote<PriceQuote & { tracks: number }>(JSON.stringify(request));
  const { busy, error, run } = useAction();
  const job = useJob('/cabinet/api/audio/music');

  return (
    <section aria-labelledby="music-heading" class="panel">
      <h2 id="music-heading">{t('playground.music')}</h2>
      {props.models.length === 0 ? (
        <p>{t('playground.music.none')}</p>
      ) : (
        <form
          class="stacked"
          onSubmit={(event) => {
            event.preventDefault();
            void run(async () => quote.set(await api('/cabinet/api/audio/music/price', { method: 'POST', body: request })));
          }}
        >
          <ModelChoice models={props.models} value={model} onChange={setModel} />
          {!instrumental && (
            <Choice
              label={t('playground.music.mode')}
              choices={['simple', 'custom']}
              value={mode}
              onChange={(value) => setMode(value === 'custom' ? 'custom' : 'simple')}
              describe={(value) => (value === 'custom' ? t('playground.music.custom') : t('playground.music.simple'))}
            />
          )}
          {ownLyrics ? (
            <label>
              {t('playground.music.lyrics')}
              <textarea rows={5} value={lyrics} required maxLength={5000} onInput={(event) => setLyrics(event.currentTarget.value)} />
            </label>
          ) : (
            <label>
              {t('playground.music.description')}
              <textarea rows={3} value={prompt} required={!instrumental} maxLength={500} onInput={(event) => setPrompt(event.currentTarget.value)} />
            </label>
          )}
          {(ownLyrics || instrumental) && (
            <div class="row">
              <label>
                {t('playground.music.style')}
                <input value={style} maxLength={500} onInput={(event) => setStyle(event.currentTarget.value)} />
              </label>
              <label>
                {t('playground.music.title')}
                <input value={title} maxLength={200} onInput={(event) => setTitle(event.currentTarget.value)} />
              </label>
            </div>
          )}
          <QuoteActions
            busy={busy}
            disabled={!complete}
            quoted={quote.current && t('playground.music.quote', { tracks: quote.current.quote.tracks, price: formatRub(quote.current.quote.price_rub, language), usd: formatUsd(quote.current.quote.price_usd, language) })}
            price={quote.current && formatRub(quote.current.quote.price_rub, language)}
            onGenerate={() =>
              run(async () => {
                const current = quote.current!;
                job.follow(await api<JobObject>('/cabinet/api/audio/music', { method: 'POST', body: { ...request, idempotency_key: current.idempotencyKey } }));
                quote.used();
              })
            }
          />
          <ErrorMessage error={error} />
        </form>
      )}
      <JobView job={job.job} error={job.error} kind="music" label={String(request.title || request.prompt || request.style || t('playground.music'))} />
    </section>
  );
}

/** A blob: URL for what the page made, revoked when replaced or when the panel goes. */
function useObjectUrl(): [string | undefined, (blob: Blob | undefined) => void] {
  const [url, setUrl] = useState<string | undefined>(undefined);
  useEffect(() => () => void (url && URL.revokeObjectURL(url)), [url]);
  return [url, (blob) => setUrl(blob ? URL.createObjectURL(blob) : undefined)];
}

export function SpeechGeneration(props: { models: CatalogModel[] }) {
  const { t, language } = useI18n();
  const [model, setModel] = useState(props.models[0]?.id ?? '');
  const selected = props.models.find((candidate) => candidate.id === model);
  const voices = capabilityList(selected, 'voices');
  const formats = capabilityList(selected, 'formats');
  const [input, setInput] = useState('');
  const [voice, setVoice] = useState('');
  const [format, setFormat] = useState('mp3');
  const request = { model, input, voice: chosen(voices, voice) ?? voice.trim(), response_format: chosen(formats, format) ?? 'mp3' };
  const quote = useQuote<PriceQuote & { characters: number }>(JSON.stringify(request));
  const { busy, error, run } = useAction();
  const [audio, setAudio] = useObjectUrl();
  const [made, setMade] = useState<{ format: string; price: string } | undefined>(undefined);

  return (
    <section aria-labelledby="speech-heading" class="panel">
      <h2 id="speech-heading">{t('playground.speech')}</h2>
      {props.models.length === 0 ? (
        <p>{t('playground.speech.none')}</p>
      ) : (
        <form
          class="stacked"
          onSubmit={(event) => {
            event.preventDefault();
            void run(async () => quote.set(await api('/cabinet/api/audio/speech/price', { method: 'POST', body: request })));
          }}
        >
          <ModelChoice models={props.models} value={model} onChange={setModel} />
          <label>
            {t('playground.speech.text')}
            <textarea rows={3} value={input} required maxLength={4096} onInput={(event) => setInput(event.currentTarget.value)} />
          </label>
          <div class="row">
            {voices.length > 0 ? (
              <Choice label={t('playground.speech.voice')} choices={voices} value={voice} onChange={setVoice} />
            ) : (
              <label>
                {t('playground.speech.voice')}
                <input value={voice} required onInput={(event) => setVoice(event.currentTarget.value)} />
              </label>
            )}
            <Choice label={t('playground.speech.format')} choices={formats} value={format} onChange={setFormat} />
          </div>
          <QuoteActions
            busy={busy}
            disabled={input.trim() === '' || request.voice === ''}
            quoted={quote.current && t('playground.speech.quote', { characters: formatDecimal(String(quote.current.quote.characters), language), price: formatRub(quote.current.quote.price_rub, language), usd: formatUsd(quote.current.quote.price_usd, language) })}
            price={quote.current && formatRub(quote.current.quote.price_rub, language)}
            onGenerate={() =>
              run(async () => {
                const price = quote.current!.quote.price_rub;
                const response = await send('/cabinet/api/audio/speech', { method: 'POST', body: request });
                setAudio(await response.blob());
                setMade({ format: request.response_format, price });
                quote.used();
              })
            }
          />
          <ErrorMessage error={error} />
        </form>
      )}
      {audio && made && (
        <div class="job">
          <p>{t('playground.job.charged', { price: formatRub(made.price, language) })}</p>
          {/* pcm is raw samples no browser plays: offered as a download only. */}
          {made.format !== 'pcm' && <audio controls src={audio} aria-label={t('playground.speech.result')} />}
          <p>
            <a href={audio} download={`speech.${made.format}`}>
              {t('playground.speech.download', { format: made.format })}
            </a>
          </p>
        </div>
      )}
    </section>
  );
}

export function Transcription(props: { models: CatalogModel[] }) {
  const { t, language } = useI18n();
  const [model, setModel] = useState(props.models[0]?.id ?? '');
  const [file, setFile] = useState<File | undefined>(undefined);
  const quote = useQuote<PriceQuote & { seconds: number }>(JSON.stringify({ model, file: file && `${file.name}:${file.size}:${file.lastModified}` }));
  const { busy, error, run } = useAction();
  const [text, setText] = useState<string | undefined>(undefined);
  const form = () => {
    const body = new FormData();
    body.set('model', model);
    body.set('response_format', 'json');
    body.set('file', file!, file!.name);
    return body;
  };

  return (
    <section aria-labelledby="transcription-heading" class="panel">
      <h2 id="transcription-heading">{t('playground.transcription')}</h2>
      {props.models.length === 0 ? (
        <p>{t('playground.transcription.none')}</p>
      ) : (
        <form
          class="stacked"
          onSubmit={(event) => {
            event.preventDefault();
            void run(async () => quote.set(await api('/cabinet/api/audio/transcriptions/price', { method: 'POST', body: form() })));
          }}
        >
          <ModelChoice models={props.models} value={model} onChange={setModel} />
          <label>
            {t('playground.transcription.file')}
            <input type="file" accept="audio/*,video/webm" required onChange={(event) => setFile(event.currentTarget.files?.[0])} />
          </label>
          <QuoteActions
            busy={busy}
            disabled={file === undefined}
            quoted={quote.current && t('playground.transcription.quote', { seconds: formatDecimal(String(quote.current.quote.seconds), language), price: formatRub(quote.current.quote.price_rub, language), usd: formatUsd(quote.current.quote.price_usd, language) })}
            price={quote.current && formatRub(quote.current.quote.price_rub, language)}
            onGenerate={() =>
              run(async () => {
                const answer = await api<{ text: string }>('/cabinet/api/audio/transcriptions', { method: 'POST', body: form() });
                setText(answer.text);
                quote.used();
              })
            }
          />
          <ErrorMessage error={error} />
        </form>
      )}
      {text !== undefined && (
        <figure class="job">
          <figcaption>{t('playground.transcription.result')}</figcaption>
          <blockquote class="transcript">{text}</blockquote>
        </figure>
      )}
      <p class="muted small">
        {t('playground.chargeNote')} <Link to="/history">{t('nav.history')}</Link>
      </p>
    </section>
  );
}
