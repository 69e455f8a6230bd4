// Which language, and a message in it. Pure (no DOM, no Preact): unit-tested in
// test/web/i18n.test.ts together with the dictionaries.
import { en, type MessageKey } from './en.js';
import { ru } from './ru.js';

export type Language = 'en' | 'ru';
export const languages: readonly Language[] = ['ru', 'en'];
export const dictionaries: Record<Language, Record<MessageKey, string>> = { en, ru };
export const languageStorageKey = 'gateway.language';

/** The stored choice if any, else the first of the browser's languages we have, else English. */
export function preferredLanguage(stored: string | null, browserLanguages: readonly string[]): Language {
  if (stored === 'en' || stored === 'ru') return stored;
  for (const tag of browserLanguages) {
    const primary = tag.toLowerCase().split('-')[0];
    if (primary === 'ru' || primary === 'en') return primary;
  }
  return 'en';
}

export type Params = Record<string, string | number>;

/** The message in that language with `{name}` placeholders filled. */
export function translate(language: Language, key: MessageKey, params?: Params): string {
  const text = dictionaries[language][key];
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}
