// The spending chart's value axis (web/src/chart-axis.ts): round ticks from 0 up to at least
// the largest bar, 1, 2 or 5 times a power of ten apart; and its days (web/src/format.ts
// formatDay) written in the page's language, as UTC days.
import test from 'ava';
import { axisTicks } from '../../web/src/chart-axis.js';
import { formatDay } from '../../web/src/format.js';

test('axis ticks: round steps from 0 to at least the largest value, at most four intervals', (t) => {
  t.deepEqual(axisTicks(0), [0], 'nothing spent: the zero line alone');
  t.deepEqual(axisTicks(3.78), [0, 1, 2, 3, 4]);
  t.deepEqual(axisTicks(4), [0, 1, 2, 3, 4], 'a value on a tick ends the axis there');
  t.deepEqual(axisTicks(7.2), [0, 2, 4, 6, 8]);
  t.deepEqual(axisTicks(123.45), [0, 50, 100, 150]);
  t.deepEqual(axisTicks(1500), [0, 500, 1000, 1500]);
  t.deepEqual(axisTicks(0.0135), [0, 0.005, 0.01, 0.015], 'tenths of a kopeck, without floating-point noise');
  t.deepEqual(axisTicks(0.3), [0, 0.1, 0.2, 0.3]);
});

test('chart days are UTC days in the page language', (t) => {
  t.is(formatDay('2026-11-28', 'en'), '28 Nov');
  t.is(formatDay('2026-11-28', 'ru'), '28 нояб.');
  t.is(formatDay('2026-05-01', 'ru'), '1 мая');
  t.is(formatDay('not a day', 'en'), 'not a day');
});
