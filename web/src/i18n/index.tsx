// Russian and English. Every string the pages show is in the two dictionaries (en.ts, ru.ts:
// the same keys, checked by the type of `ru` and by test/web/i18n.test.ts). The language
// follows navigator.languages until the user picks one with the switch, which is kept in
// localStorage (language.ts); the provider gives the pages `t` and the switch.
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useMemo, useState } from 'preact/hooks';
import type { MessageKey } from './en.js';
import { languageStorageKey, preferredLanguage, translate, type Language, type Params } from './language.js';

export type { MessageKey } from './en.js';
export { languages, type Language } from './language.js';

export interface I18n {
  readonly language: Language;
  readonly t: (key: MessageKey, params?: Params) => string;
  setLanguage(language: Language): void;
}

const I18nContext = createContext<I18n | undefined>(undefined);

function readStored(): string | null {
  try {
    return localStorage.getItem(languageStorageKey);
  } catch {
    return null; // storage disabled: the browser's languages decide
  }
}

export function I18nProvider(props: { children: ComponentChildren }) {
  const [language, setLanguageState] = useState<Language>(() => preferredLanguage(readStored(), navigator.languages ?? [navigator.language]));
  document.documentElement.lang = language;
  const setLanguage = useCallback((next: Language) => {
    try {
      localStorage.setItem(languageStorageKey, next);
    } catch {
      // not kept across visits, still switched now
    }
    setLanguageState(next);
  }, []);
  const value = useMemo<I18n>(() => ({ language, setLanguage, t: (key, params) => translate(language, key, params) }), [language, setLanguage]);
  return <I18nContext.Provider value={value}>{props.children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const value = useContext(I18nContext);
  if (!value) throw new Error('useI18n outside I18nProvider');
  return value;
}
