// Job statuses in words (web/src/job-status.ts): every status the API can return (the model's
// JobStatus, checked by the compiler below) has its own word in both languages, in the gallery
// and in the console; one the bundle does not know is shown as the API spells it.
import test from 'ava';
import type { JobStatus } from '../../src/model/jobs.js';
import { translate } from '../../web/src/i18n/language.js';
import { consoleJobStatusLabel, generationStatusLabel, jobStatuses, type JobStatusName } from '../../web/src/job-status.js';

// Fails to compile when the model gains a status the pages have no word for, or the reverse.
const sameSet: [JobStatus] extends [JobStatusName] ? ([JobStatusName] extends [JobStatus] ? true : false) : false = true;

const inRussian = (key: Parameters<typeof translate>[1]) => translate('ru', key);
const inEnglish = (key: Parameters<typeof translate>[1]) => translate('en', key);

test('the Russian gallery says the status in Russian: «Состояние: генерируется», not in_progress', (t) => {
  t.true(sameSet);
  t.is(translate('ru', 'gallery.status', { status: generationStatusLabel('in_progress', inRussian) }), 'Состояние: генерируется');
  t.deepEqual(
    jobStatuses.map((status) => generationStatusLabel(status, inRussian)),
    ['в очереди', 'генерируется', 'готово', 'ошибка', 'отменено'],
  );
  t.deepEqual(
    jobStatuses.map((status) => generationStatusLabel(status, inEnglish)),
    ['queued', 'being generated', 'completed', 'failed', 'cancelled'],
  );
});

test('the console says every status in words in both languages', (t) => {
  t.deepEqual(
    jobStatuses.map((status) => consoleJobStatusLabel(status, inRussian)),
    ['в очереди', 'выполняется', 'готова', 'с ошибкой', 'отменена'],
  );
  t.deepEqual(
    jobStatuses.map((status) => consoleJobStatusLabel(status, inEnglish)),
    ['queued', 'running', 'completed', 'failed', 'cancelled'],
  );
});

test('a status the bundle does not know is shown as the API spells it', (t) => {
  t.is(generationStatusLabel('paused', inRussian), 'paused');
  t.is(consoleJobStatusLabel('paused', inRussian), 'paused');
});
