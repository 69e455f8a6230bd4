// Issue 31, "Cabinet creation", in Debian's Chromium against a real `gateway serve` (the built
// dist/web, its simulator, a fast job runner), on SQLite and PostgreSQL: an account logged in
// by a CLI link makes a video (a long prompt and a reference image) and a song (its own lyrics,
// style and title) in the playground. Each is quoted before its Generate button appears; the
// button is double-clicked, and the quote's idempotency key makes one job of it, charged the
// quote once (the ledger as `gateway balance history` prints it); the page follows the job and
// plays its result, and the gallery plays the video and both tracks of the song (each media
// element loads its metadata: readyState ≥ 1 with a duration > 0). axe finds no serious or
// critical violation at desktop width or at 390 px on the playground with both results and on
// the gallery's two tabs (the empty playground is checked by account-cabinet.test.ts); no page
// logs a console error.
// (Code passed to evaluate runs in the page; the tests' TypeScript has no DOM types, so its
// elements are `any` here.)
import type { ExecutionContext } from 'ava';
import type { Locator, Page } from 'playwright-core';
import { patternPng } from '../../src/sim/media/png.js';
import { eventually } from '../helpers/eventually.js';
import { openPage, seriousViolations, startCabinetGateway, testInBrowser } from './browser.js';

async function visit(page: Page, link: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: link, exact: true }).waitFor();
}

/** Every media element of `scope` has loaded its metadata (a duration the browser read from the file), none failed. */
async function mediaLoaded(scope: Locator, selector: string, count: number): Promise<void> {
  await eventually(
    async () => {
      const states = await scope.locator(selector).evaluateAll((elements: any[]) => elements.map((element) => ({ ready: element.readyState, duration: element.duration, error: element.error?.code ?? null })));
      if (states.some((state) => state.error !== null)) throw new Error(`a media element failed: ${JSON.stringify(states)}`);
      return states.length === count && states.every((state) => state.ready >= 1 && state.duration > 0) ? states : undefined;
    },
    { what: `${count} × ${selector} loaded` },
  );
}

testInBrowser('a video and a song made in the playground: quoted, double-clicked and charged once, played in the page and in the gallery; axe at desktop and 390 px, no console error', async (t: ExecutionContext, database, browser) => {
  const gateway = await startCabinetGateway(t, database);
  const name = `creator-${database.backend}`;
  const account = await gateway.cli<{ id: string }>(['accounts', 'create', name]);
  await gateway.cli(['balance', 'topup', '--account', name, '--amount', '100']);
  const { page, errors } = await openPage(browser);
  const checked: string[] = [];
  const checkAccessibility = async (label: string) => {
    t.deepEqual(await seriousViolations(page), [], `axe on ${label} (desktop)`);
    await page.setViewportSize({ width: 390, height: 844 });
    t.deepEqual(await seriousViolations(page), [], `axe on ${label} (390 px)`);
    await page.setViewportSize({ width: 1280, height: 900 });
    checked.push(label);
  };
  await page.goto(await gateway.link({ account: name }));
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  await visit(page, 'Playground');

  // The video: a prompt longer than 4,000 characters, 4 s at 1280x720, one reference image.
  const videoPanel = page.getByRole('region', { name: 'Video generation' });
  const prompt = `a lighthouse at dusk, waves rolling in ${'and the light turning '.repeat(300)}[[sim:job-seconds=0.3]]`;
  t.true(prompt.length > 6_000);
  await videoPanel.getByLabel('Prompt').fill(prompt);
  await videoPanel.getByLabel('Duration').selectOption('4');
  await videoPanel.getByLabel('Size').selectOption('1280x720');
  await videoPanel.getByLabel('Reference images (up to 1)').setInputFiles({ name: 'lighthouse.png', mimeType: 'image/png', buffer: patternPng(64, 36, 'lighthouse') });
  await videoPanel.getByRole('img', { name: 'Reference image 1: lighthouse.png' }).waitFor();
  await videoPanel.getByRole('button', { name: 'Get the price' }).click();
  const videoQuote = videoPanel.getByRole('status');
  await videoQuote.waitFor();
  t.is(await videoQuote.innerText(), '4 s, 1280x720, reference images: 1 — 37.8000\u00a0₽ ($0.42)', '9.00 a second × 4 + 1.80 for the reference');
  await videoPanel.getByRole('button', { name: 'Generate for 37.8000\u00a0₽' }).dblclick();
  await videoPanel.getByText('Done. Charged 37.8000\u00a0₽.').waitFor();
  await mediaLoaded(videoPanel, 'video', 1);

  // The song: own lyrics, a style and a title; two tracks.
  const musicPanel = page.getByRole('region', { name: 'Music' });
  await musicPanel.getByLabel('Model').selectOption('sim/song');
  await musicPanel.getByLabel('Kind of song').selectOption('custom');
  await musicPanel.getByLabel('Lyrics', { exact: true }).fill('[Verse] night roads, neon lights [[sim:job-seconds=0.3]]');
  await musicPanel.getByLabel('Style', { exact: true }).fill('synth pop');
  await musicPanel.getByLabel('Title', { exact: true }).fill('Night Drive');
  await musicPanel.getByRole('button', { name: 'Get the price' }).click();
  const songQuote = musicPanel.getByRole('status');
  await songQuote.waitFor();
  t.is(await songQuote.innerText(), 'Tracks: 2 — 7.2000\u00a0₽ ($0.08)');
  await musicPanel.getByRole('button', { name: 'Generate for 7.2000\u00a0₽' }).dblclick();
  await musicPanel.getByText('Done. Charged 7.2000\u00a0₽.').waitFor();
  await mediaLoaded(musicPanel, 'audio', 2);
  await checkAccessibility('playground (video and song made)');

  // One job each, charged the quote once: the ledger as the operator's CLI prints it.
  const jobs = await database.db('jobs').where({ account_id: account.id }).orderBy('created_at');
  t.deepEqual(
    jobs.map((job: any) => [job.kind, job.model, job.status]),
    [
      ['video', 'sim/video', 'completed'],
      ['music', 'sim/song', 'completed'],
    ],
  );
  t.true(jobs.every((job: any) => typeof job.idempotency_key === 'string' && job.idempotency_key.startsWith('cabinet-')), 'sent with the page’s idempotency key');
  const history = await gateway.cli<{ data: { kind: string; amount_rub: string; model: string | null }[] }>(['balance', 'history', '--account', name]);
  t.deepEqual(
    history.data.map((row) => [row.kind, row.model, row.amount_rub]),
    [
      ['charge', 'sim/song', '-7.2000'],
      ['charge', 'sim/video', '-37.8000'],
      ['topup', null, '100.0000'],
    ],
  );
  t.like(await gateway.cli(['balance', 'show', '--account', name]), { balance_rub: '55.0000', held_rub: '0.0000' });

  // The gallery plays both: the video, and the song's two tracks.
  await visit(page, 'Gallery');
  await page.getByRole('button', { name: 'Videos' }).click();
  const videoCard = page.locator('li.card', { hasText: 'a lighthouse at dusk' });
  await videoCard.waitFor();
  await mediaLoaded(videoCard, 'video', 1);
  await checkAccessibility('gallery (video)');
  await page.getByRole('button', { name: 'Music' }).click();
  const songCard = page.locator('li.card', { hasText: 'sim/song' });
  await songCard.waitFor();
  await mediaLoaded(songCard, 'audio', 2);
  await checkAccessibility('gallery (song)');

  t.deepEqual(checked, ['playground (video and song made)', 'gallery (video)', 'gallery (song)']);
  t.deepEqual(errors, [], 'no console error or uncaught exception on any page');
});
