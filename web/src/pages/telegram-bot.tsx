// The Telegram bot on the profile page: GET /cabinet/api/telegram says whether the gateway has a
// bot and whether this user's Telegram is linked. "Connect Telegram" asks for a one-time deep
// link (POST /cabinet/api/telegram/link) and shows it: following it in Telegram links the user;
// "Disconnect" removes the link (DELETE). Left out on a gateway without a bot.
import { useState } from 'preact/hooks';
import type { TelegramLinkAnswer, TelegramLinkCreated } from '../../../src/cabinet-api/answers.js';
import { api } from '../api.js';
import { ErrorMessage } from '../components/common.js';
import { useAction, useLoad } from '../data.js';
import { useI18n } from '../i18n/index.js';

export function TelegramBotSection() {
  const { t } = useI18n();
  const state = useLoad(() => api<TelegramLinkAnswer>('/cabinet/api/telegram'), []);
  const [answer, setAnswer] = useState<TelegramLinkAnswer | undefined>(undefined);
  const [created, setCreated] = useState<TelegramLinkCreated | undefined>(undefined);
  const { busy, error, run } = useAction();
  if (state.error !== undefined) return <ErrorMessage error={state.error} />;
  const current = answer ?? state.data;
  if (!current?.available) return null;
  return (
    <section aria-labelledby="telegram-bot-heading">
      <h2 id="telegram-bot-heading">{t('telegram.title')}</h2>
      <p>{current.linked ? t('telegram.linked', { bot: `@${current.bot_username ?? ''}` }) : t('telegram.intro', { bot: `@${current.bot_username ?? ''}` })}</p>
      {created && !current.linked && (
        <p>
          <a href={created.link} target="_blank" rel="noopener noreferrer">
            {t('telegram.open')}
          </a>{' '}
          <span class="muted small">{t('telegram.once')}</span>
        </p>
      )}
      <ErrorMessage error={error} />
      {current.linked ? (
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void run(async () => {
              setAnswer(await api<TelegramLinkAnswer>('/cabinet/api/telegram', { method: 'DELETE' }));
              setCreated(undefined);
            })
          }
        >
          {t('telegram.disconnect')}
        </button>
      ) : (
        <button type="button" disabled={busy} onClick={() => void run(async () => setCreated(await api<TelegramLinkCreated>('/cabinet/api/telegram/link', { method: 'POST' })))}>
          {t('telegram.connect')}
        </button>
      )}
    </section>
  );
}
