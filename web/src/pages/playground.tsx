// Playground: chat with any enabled text model, streamed (the reasoning, when the model gives
// one, folded in a <details>), and image generation whose price is quoted by the server before
// the call is offered; then videos, video upscales and music (jobs: playground-video.tsx,
// playground-audio.tsx), speech and transcriptions, each quoted the same way. All go through
// the cabinet's routes, which run the /v1 handlers with the account's cabinet key: the charge
// lands in the history at once (a job's when it ends), and the media in the gallery.
import { useMemo, useState } from 'preact/hooks';
import { api, send } from '../api.js';
import { ErrorMessage, Link, Loading, PageHeading } from '../components/common.js';
import { useAction, useLoad } from '../data.js';
import { formatRub, formatUsd } from '../format.js';
import { useI18n } from '../i18n/index.js';
import { capabilityList, loadModels, type CatalogModel } from '../models.js';
import { readEvents } from '../sse.js';
import { ModelChoice, OptionalChoice } from '../components/playground-parts.js';
import { MusicGeneration, SpeechGeneration, Transcription } from './playground-audio.js';
import { VideoGeneration, VideoUpscale } from './playground-video.js';

export function PlaygroundPage() {
  const { t } = useI18n();
  const models = useLoad(loadModels, []);
  return (
    <>
      <PageHeading title={t('playground.title')} />
      <ErrorMessage error={models.error} />
      {models.loading && !models.data && <Loading />}
      {models.data && (
        <div class="playground">
          <Chat models={models.data.filter((model) => (model.type === 'text' || model.type === 'search') && model.capabilities?.decisions !== true)} />
          <ImageGeneration models={models.data.filter((model) => model.type === 'image' && 'per_image' in model.pricing && !model.id.includes('upscale'))} />
          <VideoGeneration models={models.data.filter((model) => model.type === 'video' && 'per_second' in model.pricing)} />
          <VideoUpscale models={models.data.filter((model) => model.type === 'video' && 'per_megapixel_second' in model.pricing)} />
          <MusicGeneration models={models.data.filter((model) => model.type === 'music')} />
          <SpeechGeneration models={models.data.filter((model) => model.type === 'tts')} />
          <Transcription models={models.data.filter((model) => model.type === 'stt')} />
        </div>
      )}
    </>
  );
}

interface Turn {
  role: 'user' | 'assistant';
  content: string;
  reasoning?: string;
}

interface ChatChunk {
  choices?: { delta?: { content?: string | null; reasoning_content?: string | null } }[];
  error?: { message?: string };
}

function Chat(props: { models: CatalogModel[] }) {
  const { t } = useI18n();
  const [model, setModel] = useState(props.models[0]?.id ?? '');
  const efforts = capabilityList(props.models.find((candidate) => candidate.id === model), 'reasoning_efforts');
  const [effort, setEffort] = useState('');
  const [input, setInput] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [streaming, setStreaming] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [controller, setController] = useState<AbortController | undefined>(undefined);

  const submit = async () => {
    const question = input.trim();
    if (!question || !model) return;
    const history: Turn[] = [...turns, { role: 'user', content: question }];
    setTurns([...history, { role: 'assistant', content: '' }]);
    setInput('');
    setError(undefined);
    setStreaming(true);
    const abort = new AbortController();
    setController(abort);
    let content = '';
    let reasoning = '';
    const show = () => setTurns([...history, { role: 'assistant', content, reasoning: reasoning || undefined }]);
    try {
      const response = await send('/cabinet/api/chat/completions', {
        method: 'POST',
        body: {
          model,
          stream: true,
          stream_options: { include_usage: true },
          messages: history.map((turn) => ({ role: turn.role, content: turn.content })),
          ...(effort && efforts.includes(effort) ? { reasoning_effort: effort } : {}),
        },
        signal: abort.signal,
      });
      for await (const event of readEvents(response.body!)) {
        if (event.data === '[DONE]') break;
        const chunk = JSON.parse(event.data) as ChatChunk;
        if (chunk.error) throw new Error(chunk.error.message ?? 'stream error');
        const delta = chunk.choices?.[0]?.delta;
        if (delta?.reasoning_content) reasoning += delta.reasoning_content;
        if (delta?.content) content += delta.content;
        show();
      }
    } catch (reason) {
      if (!(reason instanceof DOMException && reason.name === 'AbortError')) setError(reason);
    } finally {
      show();
      setStreaming(false);
      setController(undefined);
    }
  };

  return (
    <section aria-labelledby="chat-heading" class="panel">
      <h2 id="chat-heading">{t('playground.chat')}</h2>
      {props.models.length === 0 ? (
        <p>{t('playground.noTextModels')}</p>
      ) : (
        <>
          <ol class="conversation" aria-live="polite" aria-busy={streaming}>
            {turns.map((turn, index) => (
              <li key={index} class={`turn turn-${turn.role}`}>
                <span class="turn-role">{turn.role === 'user' ? t('playground.you') : t('playground.assistant')}</span>
                {turn.reasoning && (
                  <details class="reasoning">
                    <summary>{t('playground.reasoning')}</summary>
                    <p>{turn.reasoning}</p>
                  </details>
                )}
                <p class="turn-content">{turn.content || (streaming && index === turns.length - 1 ? '…' : '')}</p>
              </li>
            ))}
          </ol>
          <form
            class="stacked"
            onSubmit={(event) => {
              event.preventDefault();
              void submit();
            }}
          >
            <ModelChoice models={props.models} value={model} onChange={setModel} />
            <OptionalChoice label={t('playground.effort')} choices={efforts} value={effort} onChange={setEffort} />
            <label>
              {t('playground.message')}
              <textarea rows={3} value={input} onInput={(event) => setInput(event.currentTarget.value)} required />
            </label>
            <ErrorMessage error={error} />
            <div class="actions">
              <button type="submit" class="primary" disabled={streaming || input.trim() === ''}>
                {t('playground.send')}
              </button>
              {streaming && (
                <button type="button" onClick={() => controller?.abort()}>
                  {t('playground.stop')}
                </button>
              )}
              {!streaming && turns.length > 0 && (
                <button type="button" onClick={() => setTurns([])}>
                  {t('playground.clear')}
                </button>
              )}
            </div>
          </form>
          <p class="muted small">
            {t('playground.chargeNote')} <Link to="/history">{t('nav.history')}</Link>
          </p>
        </>
      )}
    </section>
  );
}

interface ImageQuote {
  model: string;
  n: number;
  unit_price_rub: string;
  price_rub: string;
  price_usd: string | null;
}

interface ImageRequest {
  model: string;
  prompt: string;
  n: number;
  size?: string;
  quality?: string;
}

function ImageGeneration(props: { models: CatalogModel[] }) {
  const { t, language } = useI18n();
  const [model, setModel] = useState(props.models[0]?.id ?? '');
  const selected = props.models.find((candidate) => candidate.id === model);
  const sizes = capabilityList(selected, 'sizes');
  const qualities = capabilityList(selected, 'qualities');
  const [prompt, setPrompt] = useState('');
  const [size, setSize] = useState('');
  const [quality, setQuality] = useState('');
  const [n, setN] = useState(1);
  const request = useMemo<ImageRequest>(() => {
    const body: ImageRequest = { model, prompt: prompt.trim(), n };
    if (size && sizes.includes(size)) body.size = size;
    if (quality && qualities.includes(quality)) body.quality = quality;
    return body;
  }, [model, prompt, n, size, quality, sizes.join(), qualities.join()]);
  const requestKey = JSON.stringify(request);
  const [quote, setQuote] = useState<{ key: string; quote: ImageQuote } | undefined>(undefined);
  const [images, setImages] = useState<string[]>([]);
  const { busy, error, run } = useAction();
  const currentQuote = quote?.key === requestKey ? quote.quote : undefined; // a quote holds only for the request it priced

  const format = 'png';
  return (
    <section aria-labelledby="image-heading" class="panel">
      <h2 id="image-heading">{t('playground.image')}</h2>
      {props.models.length === 0 ? (
        <p>{t('playground.noImageModels')}</p>
      ) : (
        <form
          class="stacked"
          onSubmit={(event) => {
            event.preventDefault();
            void run(async () => {
              const answer = await api<ImageQuote>('/cabinet/api/images/price', { method: 'POST', body: request });
              setQuote({ key: requestKey, quote: answer });
            });
          }}
        >
          <ModelChoice models={props.models} value={model} onChange={setModel} />
          <label>
            {t('playground.prompt')}
            <textarea rows={3} value={prompt} required onInput={(event) => setPrompt(event.currentTarget.value)} />
          </label>
          <div class="row">
            <OptionalChoice label={t('playground.size')} choices={sizes} value={size} onChange={setSize} />
            <OptionalChoice label={t('playground.quality')} choices={qualities} value={quality} onChange={setQuality} />
            <label>
              {t('playground.count')}
              <input type="number" min={1} max={4} value={n} onInput={(event) => setN(Math.min(4, Math.max(1, Number(event.currentTarget.value) || 1)))} />
            </label>
          </div>
          <div class="actions">
            <button type="submit" disabled={busy || request.prompt === ''}>
              {t('playground.quote')}
            </button>
            {currentQuote && (
              <button
                type="button"
                class="primary"
                disabled={busy}
                onClick={() =>
                  run(async () => {
                    const answer = await api<{ data: { b64_json: string }[] }>('/cabinet/api/images/generations', { method: 'POST', body: request });
                    setImages(answer.data.map((image) => `data:image/${format};base64,${image.b64_json}`));
                  })
                }
              >
                {t('playground.generateFor', { price: formatRub(currentQuote.price_rub, language) })}
              </button>
            )}
          </div>
          {currentQuote && (
            <p class="quote" role="status">
              {t('playground.quoteText', {
                n: currentQuote.n,
                unit: formatRub(currentQuote.unit_price_rub, language),
                price: formatRub(currentQuote.price_rub, language),
                usd: formatUsd(currentQuote.price_usd, language),
              })}
            </p>
          )}
          <ErrorMessage error={error} />
        </form>
      )}
      {images.length > 0 && (
        <ul class="generated">
          {images.map((source, index) => (
            <li key={index}>
              <img src={source} alt={t('playground.generatedAlt', { number: index + 1, prompt: request.prompt })} />
            </li>
          ))}
        </ul>
      )}
      {images.length > 0 && (
        <p>
          <Link to="/gallery">{t('playground.toGallery')}</Link>
        </p>
      )}
    </section>
  );
}
