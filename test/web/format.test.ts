// How the cabinet shows values (web/src/format.ts): money exactly as the server's string, its
// digits regrouped per language (en 1,234.5600; ru 1 234,5600 with no-break spaces, as
// Intl.NumberFormat groups ru), the sign joined by a no-break space; sizes in binary units.
import test from 'ava';
import { formatBytes, formatDecimal, formatNumber, formatRub, formatUsd } from '../../web/src/format.js';

const nbsp = '\u00a0';

test('money keeps every digit of the server string; only the separators follow the language', (t) => {
  t.is(formatRub('1234.5600', 'en'), `1,234.5600${nbsp}₽`);
  t.is(formatRub('1234.5600', 'ru'), `1${nbsp}234,5600${nbsp}₽`);
  t.is(formatRub('-1234567.0001', 'en'), `-1,234,567.0001${nbsp}₽`);
  t.is(formatRub('-1234567.0001', 'ru'), `-1${nbsp}234${nbsp}567,0001${nbsp}₽`);
  t.is(formatRub('999.9999', 'ru'), `999,9999${nbsp}₽`, 'no separator below a thousand');
  t.is(formatRub('0.0000', 'en'), `0.0000${nbsp}₽`);
  t.is(formatRub('3.78', 'ru'), `3,78${nbsp}₽`, 'a catalog price keeps its own decimals');
  t.is(formatRub('12345678901234567.8901', 'en'), `12,345,678,901,234,567.8901${nbsp}₽`, 'beyond a double’s precision, still exact');
  t.is(formatRub(null, 'en'), '—');
  t.is(formatRub('', 'ru'), '—');
});

test('a decimal string that is not plain digits is shown as given', (t) => {
  t.is(formatDecimal('1e5', 'en'), '1e5');
  t.is(formatDecimal('12', 'ru'), '12');
  t.is(formatDecimal('1234', 'ru'), `1${nbsp}234`);
});

test('dollars: $ before in English, after in Russian', (t) => {
  t.is(formatUsd('0.042', 'en'), '$0.042');
  t.is(formatUsd('0.042', 'ru'), `0,042${nbsp}$`);
  t.is(formatUsd('1234.5', 'en'), '$1,234.5');
  t.is(formatUsd(null, 'ru'), '—');
});

test('counts group as money does; sizes in binary units with the unit joined', (t) => {
  t.is(formatNumber(1234567, 'en'), '1,234,567');
  t.is(formatNumber(1234567, 'ru'), `1${nbsp}234${nbsp}567`);
  t.is(formatBytes(0, 'en'), `0${nbsp}B`);
  t.is(formatBytes(1536, 'en'), `1.5${nbsp}KB`);
  t.is(formatBytes(1536, 'ru'), `1,5${nbsp}КБ`);
  t.is(formatBytes(1024 ** 3, 'en'), `1${nbsp}GB`);
  t.is(formatBytes(150 * 1024 * 1024, 'ru'), `150${nbsp}МБ`);
});
