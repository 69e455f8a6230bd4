// What the bot says about images, video, music and voice, in Russian and English: the same
// keys in both (a missing translation is a typecheck error), beside texts.ts's dictionary and
// under its rules (for customers; HTML parse mode; escapeHtml for a customer's or model's text).
import { formatRub } from '../util/money.js';
import { type BotLanguage, escapeHtml } from './texts.js';

/** An amount as a customer reads it: kopecks always, the ledger's finer digits only when they are not zero (3.78, 0.027). */
export function shownRub(units: bigint): string {
  return formatRub(units).replace(/(\.\d\d\d*?)0+$/, '$1');
}

/** A moment as "2026-12-02 14:05" (UTC): when a download link stops working. */
const utcMinute = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

const en = {
  promptMissing: (command: string) => `Write what to make after the command, for example: /${command} a lighthouse at dawn`,
  quote: (what: string, prompt: string) => `${what}: <i>${escapeHtml(prompt)}</i>`,
  kindImage: 'Image',
  kindVideo: 'Video',
  kindMusic: 'Song',
  buttonGenerate: (rub: string) => `Generate for ${rub} ₽`,
  quoteTaken: 'Already started.',
  quoteStale: 'This offer has expired: send the request again for a fresh price.',
  quoteUnknown: 'This button is not yours or no longer works.',
  priceChanged: (rub: string) => `The price has changed: now ${rub} ₽.`,
  generating: 'Generating…',
  imageCaption: (rub: string) => `Cost: ${rub} ₽`,
  queued: (what: string) => `${what} is queued. I will send it here when it is ready.`,
  jobFailed: (what: string) => `${what} could not be made: the service failed to produce it. Nothing was charged; you can try again.`,
  tooLarge: (what: string, url: string, until: number) => `${what} is ready but too large for Telegram. Download it here (the link works until ${utcMinute(until)} UTC): ${escapeHtml(url)}`,
  notDelivered: 'The result could not be delivered here. Its charge has been returned to your balance.',
  voiceUnreadable: 'I could not make out this voice message. Nothing was charged for it.',
  heard: (text: string) => `🎙 <i>${escapeHtml(text)}</i>`,
  nothingHeard: 'I heard no words in this voice message.',
};

export type MediaTexts = typeof en;

const ru: MediaTexts = {
  promptMissing: (command) => `Напишите после команды, что сделать, например: /${command} маяк на рассвете`,
  quote: (what, prompt) => `${what}: <i>${escapeHtml(prompt)}</i>`,
  kindImage: 'Картинка',
  kindVideo: 'Видео',
  kindMusic: 'Песня',
  buttonGenerate: (rub) => `Создать за ${rub} ₽`,
  quoteTaken: 'Уже запущено.',
  quoteStale: 'Предложение устарело: отправьте запрос снова, чтобы узнать актуальную цену.',
  quoteUnknown: 'Эта кнопка не ваша или больше не действует.',
  priceChanged: (rub) => `Цена изменилась: теперь ${rub} ₽.`,
  generating: 'Создаю…',
  imageCaption: (rub) => `Стоимость: ${rub} ₽`,
  queued: (what) => `${what}: задание в очереди. Пришлю сюда, когда будет готово.`,
  jobFailed: (what) => `${what}: не получилось — сервис не смог это сделать. Ничего не списано; можно попробовать ещё раз.`,
  tooLarge: (what, url, until) => `${what}: готово, но файл слишком велик для Telegram. Скачайте его по ссылке (действует до ${utcMinute(until)} UTC): ${escapeHtml(url)}`,
  notDelivered: 'Результат не удалось доставить сюда. Списанная сумма возвращена на баланс.',
  voiceUnreadable: 'Не удалось разобрать это голосовое сообщение. Ничего не списано.',
  heard: (text) => `🎙 <i>${escapeHtml(text)}</i>`,
  nothingHeard: 'В этом голосовом сообщении не слышно слов.',
};

export const mediaTexts: Readonly<Record<BotLanguage, MediaTexts>> = { ru, en };

/** What a kind of generation (a quote's, a job's) is called in a message. */
export function kindName(t: MediaTexts, kind: string): string {
  return kind === 'image' ? t.kindImage : kind === 'music' ? t.kindMusic : t.kindVideo;
}
