// How values are shown. Money arrives from the server as exact decimal strings (the ledger's
// formatRub) and is shown as such: nothing here computes money, only the decimal separator
// follows the language. Times: the OpenAI-shaped lists give Unix seconds, other fields
// milliseconds or ISO strings; dateOf reads all three.
import type { Language } from './i18n/index.js';

const locales: Record<Language, string> = { en: 'en-GB', ru: 'ru-RU' };

/** "12.3400" → "12.3400 ₽" (en) / "12,3400 ₽" (ru): the same digits, never rounded. */
export function formatRub(value: string | null | undefined, language: Language): string {
  if (value === null || value === undefined || value === '') return '—';
  return `${language === 'ru' ? value.replace('.', ',') : value} ₽`;
}

/** A USD price as given (exact string), or a dash when the gateway has no rate. */
export function formatUsd(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  return `$${value}`;
}

/** Below 10^11 a number is Unix seconds (that is the year 5138 in milliseconds). */
export function dateOf(value: number | string | null | undefined): Date | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value === 'number') return new Date(value < 1e11 ? value * 1000 : value);
  const number = Number(value);
  if (Number.isFinite(number)) return dateOf(number);
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : new Date(parsed);
}

export function formatDateTime(value: number | string | null | undefined, language: Language): string {
  const date = dateOf(value);
  if (!date) return '—';
  return new Intl.DateTimeFormat(locales[language], { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

export function formatNumber(value: number, language: Language): string {
  return new Intl.NumberFormat(locales[language]).format(value);
}

/** 1536 → "1.5 KB"; binary multiples, as the quota is configured (1GB = 2^30 bytes). */
export function formatBytes(bytes: number, language: Language): string {
  const units = language === 'ru' ? ['Б', 'КБ', 'МБ', 'ГБ', 'ТБ'] : ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${new Intl.NumberFormat(locales[language], { maximumFractionDigits: digits }).format(value)} ${units[unit]}`;
}
