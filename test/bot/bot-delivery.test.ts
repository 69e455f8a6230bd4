// Getting text into Telegram (src/bot/deliver.ts, streamed-reply.ts): splitting at sensible
// boundaries, the 429 transformer, and the folded reasoning and throttled edits of a streamed
// answer, with a recording stand-in for grammY's Api.
import test from 'ava';
import type { Api } from 'grammy';
import { GrammyError } from 'grammy';
import { retryAfterTransformer, splitText } from '../../src/bot/deliver.js';
import { StreamedReply } from '../../src/bot/streamed-reply.js';
import { botTexts } from '../../src/bot/texts.js';

test('splitText cuts at a paragraph, else a line, a sentence, a word, else hard; every part within the limit', (t) => {
  t.deepEqual(splitText('short', 10), ['short']);
  t.deepEqual(splitText('aaaa bbbb\n\ncccc dddd', 12), ['aaaa bbbb', 'cccc dddd']);
  t.deepEqual(splitText('aaaa bbbb\ncccc dddd', 12), ['aaaa bbbb', 'cccc dddd']);
  t.deepEqual(splitText('Aaa bb. Ccc dd. Eee', 12), ['Aaa bb.', 'Ccc dd. Eee']);
  t.deepEqual(splitText('aaa bbb ccc ddd', 9), ['aaa bbb', 'ccc ddd']);
  t.deepEqual(splitText('x'.repeat(25), 10), ['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
  const long = Array.from({ length: 900 }, (_, index) => `Sentence number ${index}.`).join(' ');
  const parts = splitText(long);
  t.true(parts.every((part) => part.length <= 4096));
  t.is(parts.join(' '), long, 'nothing lost, nothing added');
  t.true(parts.slice(0, -1).every((part) => part.endsWith('.')), 'cut after a sentence');
  t.deepEqual(splitText('😀'.repeat(6), 5).map((part) => part.length), [4, 4, 4], 'never half a surrogate pair');
});

test('the 429 transformer waits retry_after and calls again, at most three more times', async (t) => {
  const waits: number[] = [];
  const answers = [
    { ok: false, error_code: 429, description: 'Too Many Requests: retry after 2', parameters: { retry_after: 2 } },
    { ok: false, error_code: 429, description: 'Too Many Requests: retry after 0', parameters: { retry_after: 0 } },
    { ok: true, result: true },
  ];
  let calls = 0;
  const transformer = retryAfterTransformer(async (ms) => void waits.push(ms));
  const result = await transformer((async () => answers[calls++]) as never, 'sendMessage', { chat_id: 1, text: 'x' } as never);
  t.deepEqual(result, { ok: true, result: true });
  t.deepEqual(waits, [2000, 0]);
  calls = 0;
  const always429 = await transformer((async () => (calls++, answers[0])) as never, 'sendMessage', { chat_id: 1, text: 'x' } as never);
  t.is((always429 as { error_code: number }).error_code, 429);
  t.is(calls, 4, 'the first call and three retries');
});

function recordingApi(failEdits: (text: string) => GrammyError | undefined = () => undefined) {
  const calls: { method: string; messageId?: number; text: string }[] = [];
  let nextId = 100;
  const api = {
    async editMessageText(_chat: number, messageId: number, text: string) {
      const failure = failEdits(text);
      if (failure) throw failure;
      calls.push({ method: 'edit', messageId, text });
      return true;
    },
    async sendMessage(_chat: number, text: string) {
      calls.push({ method: 'send', text });
      return { message_id: nextId++ };
    },
  } as unknown as Api;
  return { api, calls };
}

test('a streamed reply folds its reasoning, continues past 4000 characters in a new message, and puts the footer last', async (t) => {
  const { api, calls } = recordingApi();
  const reply = new StreamedReply(api, 1, 50, botTexts.en, 0, () => undefined);
  reply.update('', 'Let me think. ');
  reply.update('', 'Done thinking.');
  const answer = `${'word '.repeat(900)}\n\n${'tail '.repeat(10)}`.trim();
  reply.update(answer, '');
  t.true(await reply.finish('<i>Cost: 0.0100 ₽</i>'));
  const final = new Map<number, string>();
  let sentId = 100;
  for (const call of calls) final.set(call.method === 'send' ? sentId++ : call.messageId!, call.text);
  const first = final.get(50)!;
  t.true(first.startsWith('<blockquote expandable>💭 Let me think. Done thinking.</blockquote>\nword word'), first.slice(0, 80));
  const second = final.get(100)!;
  t.true(second.endsWith(`${'tail '.repeat(10).trim()}\n\n<i>Cost: 0.0100 ₽</i>`));
  t.is(final.size, 2);
  const body = `${first.replace(/^<blockquote expandable>[^<]*<\/blockquote>\n/, '')} ${second.replace(/\n\n<i>Cost: 0\.0100 ₽<\/i>$/, '')}`;
  t.is(body.replace(/\s+/g, ' '), answer.replace(/\s+/g, ' '), 'the parts are the whole answer');
  t.true([...final.values()].every((text) => text.replace(/<[^>]+>/g, '').length <= 4096));
});

test('a reply whose final edit Telegram refuses (not a block) reports it undelivered; a blocked user stops it and calls onGone once', async (t) => {
  const refusing = recordingApi((text) => (text.includes('Cost') ? new GrammyError('refused', { ok: false, error_code: 400, description: 'Bad Request: can\'t parse entities' }, 'editMessageText', {}) : undefined));
  const reply = new StreamedReply(refusing.api, 1, 50, botTexts.en, 0, () => undefined);
  reply.update('Hello', '');
  t.false(await reply.finish('Cost'));
  t.false(reply.gone);

  let gone = 0;
  const blocked = recordingApi(() => new GrammyError('blocked', { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' }, 'editMessageText', {}));
  const cut = new StreamedReply(blocked.api, 1, 50, botTexts.en, 0, () => gone++);
  cut.update('Hello', '');
  t.false(await cut.finish(undefined));
  t.true(cut.gone);
  t.is(gone, 1);
  t.deepEqual(blocked.calls, []);
});
