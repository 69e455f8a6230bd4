// How the console shows times and latencies: an operator reading logs wants the seconds, and
// latencies to a tenth of a millisecond (the request log keeps microseconds), the unit joined
// by a no-break space as format.ts joins its units.
import { dateOf } from '../format.js';
import type { Language } from '../i18n/index.js';

const locales: Record<Language, string> = { en: 'en-GB', ru: 'ru-RU' };

/** A date with the time to the second, in the browser's time zone. */
export function formatMoment(value: number | string | null | undefined, language: Language): string {
  const date = dateOf(value);
  if (!date) return '—';
  return new Intl.DateTimeFormat(locales[language], { dateStyle: 'medium', timeStyle: 'medium' }).format(date);
}

export function formatMilliseconds(milliseconds: number, language: Language): string {
  return `${new Intl.NumberFormat(locales[language], { maximumFractionDigits: 1 }).format(milliseconds)}\u00a0${language === 'ru' ? 'мс' : 'ms'}`;
}
