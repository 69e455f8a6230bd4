// TypeSafe System One decisions (wire-formats.md §6): POST /v1/systemone, one state and a map
// of typed questions (noul | choice | score), one typed answer per question. Validation like
// the real (FastAPI) service: 422 `{detail:[…]}` listing every problem. Probabilities are
// deterministic from sha256(state, question name), in units of 0.0001 summing to exactly 1 (the
// rounding remainder goes to the largest). "[[sim:refuse]]" in a question's instructions makes
// that answer a refusal; the other magic strings (state or instructions) apply to the request.
import type { SimContext } from '../context.js';
import { sendJson } from '../context.js';
import { isRecord } from '../guards.js';
import { countTokens } from '../tokens.js';
import { applyFaults, rawBodyOf, seededRandom } from './common.js';
import { ValidationFailure, type ValidationDetail } from './errors.js';

export const defaultDecisionModel = 'jev-sim';
const questionTypes = ['noul', 'choice', 'score'] as const;
const units = 10_000;

function validate(body: unknown): ValidationDetail[] {
  const details: ValidationDetail[] = [];
  const add = (type: string, loc: (string | number)[], msg: string, input: unknown) => details.push({ type, loc: ['body', ...loc], msg, input });
  if (!isRecord(body)) {
    add('model_attributes_type', [], 'Input should be a valid dictionary or object to extract fields from', body);
    return details;
  }
  if (body.model !== undefined && body.model !== null && typeof body.model !== 'string') add('string_type', ['model'], 'Input should be a valid string', body.model);
  if (body.state === undefined || body.state === null) add('missing', ['state'], 'Field required', body);
  else if (typeof body.state !== 'string' && typeof body.state !== 'object') add('value_error', ['state'], 'Value error, state must be a string, an object or an array', body.state);
  const questions = body.questions;
  if (questions === undefined || questions === null) {
    add('missing', ['questions'], 'Field required', body);
    return details;
  }
  if (!isRecord(questions)) {
    add('dict_type', ['questions'], 'Input should be a valid dictionary', questions);
    return details;
  }
  if (Object.keys(questions).length === 0) add('value_error', ['questions'], 'Value error, at least one question is required', questions);
  for (const [name, question] of Object.entries(questions)) {
    if (!isRecord(question)) {
      add('model_attributes_type', ['questions', name], 'Input should be a valid dictionary or object to extract fields from', question);
      continue;
    }
    if (question.type === undefined) add('missing', ['questions', name, 'type'], 'Field required', question);
    else if (!(questionTypes as readonly unknown[]).includes(question.type)) {
      add('union_tag_invalid', ['questions', name, 'type'], `Input tag ${JSON.stringify(question.type)} found using 'type' does not match any of the expected tags: 'noul', 'choice', 'score'`, question.type);
    }
    if (question.instructions === undefined || question.instructions === null) add('missing', ['questions', name, 'instructions'], 'Field required', question);
    else if (typeof question.instructions !== 'string' && typeof question.instructions !== 'object') {
      add('value_error', ['questions', name, 'instructions'], 'Value error, instructions must be a string, an object or an array', question.instructions);
    }
    const criteria = question.criteria;
    const at = ['questions', name, 'criteria'];
    if (question.type === 'noul' && criteria !== undefined && criteria !== null) {
      if (!isRecord(criteria) || typeof criteria.true !== 'string' || typeof criteria.false !== 'string') {
        add('value_error', at, 'Value error, noul criteria need both "true" and "false" descriptions', criteria);
      }
    } else if (question.type === 'choice') {
      const count = isRecord(criteria) ? Object.keys(criteria).length : -1;
      if (criteria === undefined || criteria === null) add('missing', at, 'Field required', question);
      else if (!isRecord(criteria)) add('dict_type', at, 'Input should be a valid dictionary', criteria);
      else if (count < 2 || count > 255) add('value_error', at, `Value error, a choice needs 2 to 255 options, got ${count}`, criteria);
      else if (!Object.values(criteria).every((value) => value === null || typeof value === 'string')) add('value_error', at, 'Value error, option descriptions must be strings or null', criteria);
    } else if (question.type === 'score') {
      if (criteria === undefined || criteria === null) add('missing', at, 'Field required', question);
      else if (!Array.isArray(criteria)) add('list_type', at, 'Input should be a valid list', criteria);
      else if (criteria.length < 2 || criteria.length > 10) add('value_error', at, `Value error, a score needs 2 to 10 levels, got ${criteria.length}`, criteria);
      else if (!criteria.every((level) => typeof level === 'string')) add('value_error', at, 'Value error, level descriptions must be strings', criteria);
    }
  }
  return details;
}

/**
 * `count` probabilities from the seed, peaked (weights u^3), each a multiple of 0.0001 and
 * summing to exactly 10000 units; the rounding remainder is put on the largest.
 */
export function decisionProbabilities(count: number, ...seed: string[]): number[] {
  const random = seededRandom('systemone', ...seed);
  const weights = Array.from({ length: count }, () => random() ** 3 + 1e-6);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const shares = weights.map((weight) => Math.round((weight / total) * units));
  let largest = 0;
  shares.forEach((share, index) => {
    if (share > shares[largest]!) largest = index;
  });
  shares[largest] += units - shares.reduce((sum, share) => sum + share, 0);
  return shares.map((share) => share / units);
}

function round4(value: number): number {
  return Math.round(value * units) / units;
}

function argmax(values: readonly number[]): number {
  let best = 0;
  values.forEach((value, index) => {
    if (value > values[best]!) best = index;
  });
  return best;
}

/** POST /v1/systemone */
export async function handleSystemOne(context: SimContext): Promise<void> {
  let body: unknown;
  try {
    body = JSON.parse(rawBodyOf(context).toString('utf8'));
  } catch {
    throw new ValidationFailure([{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {} }]);
  }
  const details = validate(body);
  if (details.length > 0) throw new ValidationFailure(details);
  const request = body as { model?: string; state: unknown; questions: Record<string, { type: 'noul' | 'choice' | 'score'; instructions: unknown; criteria?: unknown }> };
  const stateText = JSON.stringify(request.state);
  const questionsText = JSON.stringify(request.questions);
  if (!(await applyFaults(context, stateText + questionsText))) return;

  const answers: Record<string, unknown> = {};
  for (const [name, question] of Object.entries(request.questions)) {
    const instructions = typeof question.instructions === 'string' ? question.instructions : JSON.stringify(question.instructions);
    if (instructions.includes('[[sim:refuse]]')) {
      answers[name] = { type: 'refusal', reason: 'simulated refusal' };
      continue;
    }
    if (question.type === 'noul') {
      const [yes] = decisionProbabilities(2, stateText, name);
      answers[name] = { type: 'noul', noul: yes };
    } else if (question.type === 'choice') {
      const ids = Object.keys(question.criteria as Record<string, unknown>);
      const probabilities = decisionProbabilities(ids.length, stateText, name);
      const best = argmax(probabilities);
      answers[name] = { type: 'choice', choice: ids[best], confidence: probabilities[best], probabilities: Object.fromEntries(ids.map((id, index) => [id, probabilities[index]])) };
    } else {
      const levels = question.criteria as string[];
      const probabilities = decisionProbabilities(levels.length, stateText, name);
      answers[name] = {
        type: 'score',
        score: round4(probabilities.reduce((sum, p, index) => sum + index * p, 0)),
        confidence: probabilities[argmax(probabilities)],
        legend: Object.fromEntries(levels.map((level, index) => [String(index), level])),
        probabilities: Object.fromEntries(probabilities.map((p, index) => [String(index), p])),
      };
    }
  }
  sendJson(context, 200, {
    model: typeof request.model === 'string' ? request.model : defaultDecisionModel,
    answers,
    usage: { input_tokens: countTokens(stateText + questionsText), output_tokens: 0 },
  });
}
