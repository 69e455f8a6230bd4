// TypeSafe System One decisions on the simulator over plain HTTP: typed answers with
// probabilities summing to exactly 1 (in 0.0001 units), refusals, and the 422 validation.
import test from 'ava';
import { countTokens } from '../../src/sim/tokens.js';
import { postRaw, startTestSimulator } from './simulator.js';

const state = 'Customer: I was charged twice and want a refund today.';
const questions = {
  is_refund: { type: 'noul', instructions: 'Is the customer asking for a refund?', criteria: { true: 'asks for money back', false: 'anything else' } },
  team: { type: 'choice', instructions: 'Which team should handle this?', criteria: { billing: 'charges, refunds', technical: 'bugs', other: null } },
  urgency: { type: 'score', instructions: 'How urgent is it?', criteria: ['can wait', 'this week', 'today'] },
  skipped: { type: 'noul', instructions: 'Anything else? [[sim:refuse]]' },
};
const units = (probabilities: Record<string, number>) => Object.values(probabilities).reduce((sum, p) => sum + Math.round(p * 10_000), 0);

test('systemone: one typed answer per question, deterministic, probabilities summing to exactly 1', async (t) => {
  const { url } = await startTestSimulator(t);
  const answer = await postRaw(`${url}/v1/systemone`, { model: 'jev-latest', state, questions });
  t.is(answer.status, 200);
  const body = JSON.parse(answer.text);
  t.is(body.model, 'jev-latest');
  t.deepEqual(body.usage, { input_tokens: countTokens(JSON.stringify(state) + JSON.stringify(questions)), output_tokens: 0 });
  const { is_refund, team, urgency, skipped } = body.answers;
  t.deepEqual(Object.keys(is_refund), ['type', 'noul']);
  t.true(is_refund.noul >= 0 && is_refund.noul <= 1);

  t.is(team.type, 'choice');
  t.deepEqual(Object.keys(team.probabilities), ['billing', 'technical', 'other']);
  t.is(units(team.probabilities), 10_000);
  const best = Object.entries(team.probabilities as Record<string, number>).sort((a, b) => b[1] - a[1])[0]!;
  t.is(team.choice, best[0]);
  t.is(team.confidence, best[1]);
  for (const p of Object.values(team.probabilities as Record<string, number>)) t.is(Math.round(p * 10_000) / 10_000, p, 'four decimals');

  t.is(urgency.type, 'score');
  t.deepEqual(urgency.legend, { 0: 'can wait', 1: 'this week', 2: 'today' });
  t.deepEqual(Object.keys(urgency.probabilities), ['0', '1', '2']);
  t.is(units(urgency.probabilities), 10_000);
  const expected = urgency.probabilities['1'] + 2 * urgency.probabilities['2'];
  t.true(Math.abs(urgency.score - expected) < 1e-4);
  t.true(urgency.confidence > 0 && urgency.confidence <= 1);

  t.deepEqual(skipped, { type: 'refusal', reason: 'simulated refusal' });

  const again = JSON.parse((await postRaw(`${url}/v1/systemone`, { state, questions })).text);
  t.deepEqual(again.answers, body.answers, 'deterministic from (state, question name)');
  t.is(again.model, 'jev-sim');
  const other = JSON.parse((await postRaw(`${url}/v1/systemone`, { state: { ticket: 42 }, questions })).text);
  t.notDeepEqual(other.answers.team.probabilities, body.answers.team.probabilities);

  const many = Object.fromEntries(Array.from({ length: 255 }, (_, index) => [`option${index}`, null]));
  const wide = JSON.parse((await postRaw(`${url}/v1/systemone`, { state, questions: { q: { type: 'choice', instructions: 'pick', criteria: many } } })).text);
  t.is(units(wide.answers.q.probabilities), 10_000);
});

test('systemone: 422 with a pydantic-style detail for each invalid body', async (t) => {
  const { url } = await startTestSimulator(t);
  const levels = (count: number) => Array.from({ length: count }, (_, index) => `level ${index}`);
  const options = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`o${index}`, null]));
  const cases: [string, unknown, (string | number)[]][] = [
    ['no questions', { state, questions: {} }, ['body', 'questions']],
    ['questions missing', { state }, ['body', 'questions']],
    ['state missing', { questions: { q: questions.team } }, ['body', 'state']],
    ['unknown type', { state, questions: { q: { type: 'maybe', instructions: 'x' } } }, ['body', 'questions', 'q', 'type']],
    ['missing instructions', { state, questions: { q: { type: 'noul' } } }, ['body', 'questions', 'q', 'instructions']],
    ['choice with 1 option', { state, questions: { q: { type: 'choice', instructions: 'x', criteria: options(1) } } }, ['body', 'questions', 'q', 'criteria']],
    ['choice with 256 options', { state, questions: { q: { type: 'choice', instructions: 'x', criteria: options(256) } } }, ['body', 'questions', 'q', 'criteria']],
    ['score with 1 level', { state, questions: { q: { type: 'score', instructions: 'x', criteria: levels(1) } } }, ['body', 'questions', 'q', 'criteria']],
    ['score with 11 levels', { state, questions: { q: { type: 'score', instructions: 'x', criteria: levels(11) } } }, ['body', 'questions', 'q', 'criteria']],
    ['noul criteria without false', { state, questions: { q: { type: 'noul', instructions: 'x', criteria: { true: 'yes' } } } }, ['body', 'questions', 'q', 'criteria']],
  ];
  for (const [name, body, loc] of cases) {
    const answer = await postRaw(`${url}/v1/systemone`, body);
    t.is(answer.status, 422, name);
    const detail = JSON.parse(answer.text).detail;
    t.true(Array.isArray(detail) && detail.length >= 1, name);
    t.true(detail.some((item: { loc: unknown }) => JSON.stringify(item.loc) === JSON.stringify(loc)), `${name}: ${JSON.stringify(detail)}`);
    t.true(detail.every((item: { type: unknown; msg: unknown }) => typeof item.type === 'string' && typeof item.msg === 'string'), name);
  }
  // Every problem is reported at once; invalid JSON is a 422 too.
  const both = JSON.parse((await postRaw(`${url}/v1/systemone`, { questions: { a: { type: 'x' }, b: { type: 'score', instructions: 'y', criteria: [] } } })).text).detail;
  t.true(both.length >= 4);
  const broken = await fetch(`${url}/v1/systemone`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"state":' });
  t.is(broken.status, 422);
  t.is(((await broken.json()) as { detail: { type: string }[] }).detail[0]!.type, 'json_invalid');
  // Magic strings of the state apply; other errors are {detail: "…"}.
  const overloaded = await postRaw(`${url}/v1/systemone`, { state: 'x [[sim:status=529]]', questions: { q: questions.team } });
  t.is(overloaded.status, 529);
  t.is(typeof JSON.parse(overloaded.text).detail, 'string');
});
