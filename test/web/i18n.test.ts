// The cabinet's two languages (web/src/i18n): the same keys with the same placeholders in both,
// no empty message, and the choice: a stored switch wins, then the browser's languages in
// order, then English.
import test from 'ava';
import { en } from '../../web/src/i18n/en.js';
import { dictionaries, preferredLanguage, translate } from '../../web/src/i18n/language.js';
import { ru } from '../../web/src/i18n/ru.js';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

test('Russian and English have the same keys, each with the same placeholders and some text', (t) => {
  t.deepEqual(Object.keys(ru).sort(), Object.keys(en).sort());
  for (const key of Object.keys(en) as (keyof typeof en)[]) {
    t.deepEqual(placeholders(ru[key]), placeholders(en[key]), key);
    t.true(en[key].trim().length > 0 && ru[key].trim().length > 0, key);
  }
  t.deepEqual(Object.keys(dictionaries).sort(), ['en', 'ru']);
});

test('the language: the stored choice, else the first browser language we have, else English', (t) => {
  t.is(preferredLanguage('ru', ['en-US']), 'ru');
  t.is(preferredLanguage('en', ['ru-RU']), 'en');
  t.is(preferredLanguage(null, ['de-DE', 'ru-RU', 'en']), 'ru');
  t.is(preferredLanguage(null, ['EN-gb', 'ru']), 'en');
  t.is(preferredLanguage('fr', ['uk-UA', 'de']), 'en', 'an unknown stored value is ignored');
  t.is(preferredLanguage(null, []), 'en');
});

test('messages are filled in by name; an unknown placeholder stays visible', (t) => {
  t.is(translate('en', 'common.error', { message: 'boom' }), 'Error: boom');
  t.is(translate('ru', 'files.quotaUsed', { used: '1 МБ', quota: '1 ГБ' }), 'Файлы на бессрочном хранении занимают 1 МБ из 1 ГБ');
  t.is(translate('en', 'common.error'), 'Error: {message}');
});
