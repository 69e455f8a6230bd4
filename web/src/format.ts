// How values are shown. Money arrives from the server as exact decimal strings (the ledger's
// formatRub) and is shown as such: nothing here computes money — the digits are regrouped as
// text, never parsed into a number, so no amount is rounded. Separators follow the language as
// Intl.NumberFormat writes them (en: 1,234.5; ru: 1 234,5 with a no-break space), so money,
// counts and sizes read alike on one page; the unit sign is joined by a no-break space.
// Times: the OpenAI-shaped lists give Unix seconds, other fields milliseconds or ISO strings;
// dateOf reads all three.
import type { Language } from './i18n/language.js';

const locales: Record<Language, string> = { en: 'en-GB', ru: 'ru-RU' };
const groupSeparators: Record<Language, string> = { en: ',', ru: '\u00a0' };
const decimalSeparators: Record<Language, string> = { en: '.', ru: ',' };
const noBreakSpace = '\u00a0';

/** "-1234.5600" → "-1,234.5600" (en) / "-1 234,5600" (ru): the same digits; anything else as given. */
export function formatDecimal(value: string, language: Language): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value);
  if (!match) return value;
  const [, sign, whole, fraction] = match;
  const grouped = whole!.replace(/\B(?=(\d{3})+$)/g, groupSeparators[language]);
  return fraction === undefined ? `${sign}${grouped}` : `${sign}${grouped}${decimalSeparators[language]}${fraction}`;
}

/** "1234.5600" → "1,234.5600 ₽" (en) / "1 234,5600 ₽" (ru), never rounded; a dash for none. */
export function formatRub(value: string | null | undefined, language: Language): string {
  if (value === null || value === undefined || value === '') return '—';
  return `${formatDecimal(value, language)}${noBreakSpace}₽`;
}

/** A USD price as given (exact string): "$0.042" (en) / "0,042 $" (ru); a dash when the gateway has no rate. */
export function formatUsd(value: string | null | undefined, language: Language): string {
  if (value === null || value === undefined || value === '') return '—';
  return language === 'ru' ? `${formatDecimal(value, 'ru')}${noBreakSpace}$` : `$${formatDecimal(value, 'en')}`;
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

/** A UTC day "2026-11-28" as the language writes it short: "28 Nov" (en) / "28 нояб." (ru). */
export function formatDay(day: string, language: Language): string {
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  // The days are UTC days (src/cabinet-api/overview.ts): written in UTC, whatever the browser's zone.
  return new Intl.DateTimeFormat(locales[language], { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(date);
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
  return `${new Intl.NumberFormat(locales[language], { maximumFractionDigits: digits }).format(value)}${noBreakSpace}${units[unit]}`;
}

/**
 * An amount as typed, the way the Russian pages write amounts read too ("1 234,5" → "1234.5"):
 * spaces (no-break ones too) dropped and, when there is no decimal point, a comma read as one.
 * Nothing else is changed: the API parses the text exactly and refuses what is not an amount.
 */
export function typedAmount(typed: string): string {
  const text = typed.replace(/\s/g, '');
  return text.includes('.') ? text : text.replace(',', '.');
}
