// What a key may do beyond its scopes (issue 18): an expiry, a model allowlist (ids or glob
// patterns), an IP allowlist (IPv4/IPv6 addresses or CIDR blocks) and a spending budget per
// period. Parsed here from the CLI's flags, checked here against a request. Every check reads
// the key object the request already has (looked up, or from the cache): a key with none of
// them set costs nothing more. The budget itself is enforced by the hold (ledger.ts).
import type { BlockList } from 'node:net';
import { formatRub, parseRub } from '../util/money.js';
import { DomainError } from '../errors/domain-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import { blockListOf, isAddressOrBlock, listed } from '../util/ip-list.js';
import type { ApiKey } from './api-keys.js';

export const budgetPeriods = ['day', 'week', 'month', 'total'] as const;
export type BudgetPeriod = (typeof budgetPeriods)[number];

/** A flag's value the CLI refuses (exit 1, `invalid_argument`, naming the flag). */
export class KeyPolicyFormatError extends DomainError {
  override readonly catalogCode = 'invalid_argument';
  override readonly seenIn = 'cli';

  constructor(
    readonly flag: string,
    /** What is wrong, without the flag (the admin API names its own field). */
    readonly reason: string,
  ) {
    super(`--${flag}: ${reason}`);
    this.name = 'KeyPolicyFormatError';
  }
}

const dayMs = 86_400_000;
const durationUnits: Record<string, number> = { m: 60_000, h: 3_600_000, d: dayMs, w: 7 * dayMs };

/**
 * `--expires`: `never` (null), a duration from now (`30d`, `12h`, `90m`, `2w`), a date
 * (`2027-01-31`: the key expires at 00:00 UTC of that day) or an ISO time with its zone.
 */
export function parseExpires(text: string, now: number): number | null {
  const value = text.trim();
  if (value === 'never') return null;
  const duration = /^(\d{1,6})([mhdw])$/.exec(value);
  if (duration) {
    const amount = Number(duration[1]);
    if (amount < 1) throw new KeyPolicyFormatError('expires', `"${text}" is not in the future`);
    return now + amount * durationUnits[duration[2]!]!;
  }
  const isDate = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const isTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(value);
  const at = isDate ? Date.parse(`${value}T00:00:00Z`) : isTime ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) throw new KeyPolicyFormatError('expires', `"${text}" is not never, a duration (30d, 12h, 90m, 2w), a date (2027-01-31) or an ISO time with its zone`);
  if (isDate && new Date(at).toISOString().slice(0, 10) !== value) throw new KeyPolicyFormatError('expires', `"${text}" is not a calendar date`);
  if (at <= now) throw new KeyPolicyFormatError('expires', `"${text}" is not in the future`);
  return at;
}

/** `--models`: comma-separated model ids or glob patterns (`*` any run of characters, `?` one); `any` clears the list. */
export function parseModels(text: string): string[] | null {
  if (text.trim() === 'any') return null;
  const patterns = text.split(',').map((part) => part.trim());
  if (patterns.length === 0 || patterns.some((pattern) => pattern === '' || !/^[A-Za-z0-9._:/*?@+-]+$/.test(pattern))) {
    throw new KeyPolicyFormatError('models', `"${text}" is not a comma-separated list of model ids or patterns (letters, digits, . _ : / @ + - and the wildcards * ?)`);
  }
  return [...new Set(patterns)];
}

/** `--allow-ips`: comma-separated IPv4/IPv6 addresses or CIDR blocks; `any` clears the list. */
export function parseAllowedIps(text: string): string[] | null {
  if (text.trim() === 'any') return null;
  const entries = text.split(',').map((part) => part.trim());
  for (const entry of entries) {
    if (!isAddressOrBlock(entry)) {
      throw new KeyPolicyFormatError('allow-ips', `"${entry}" is not an IPv4/IPv6 address or CIDR block (10.0.0.0/8, 203.0.113.7, 2001:db8::/32)`);
    }
  }
  return [...new Set(entries)];
}

/** `--budget`: RUB per period (`off` removes the budget). */
export function parseBudget(text: string): bigint | null {
  if (text.trim() === 'off') return null;
  try {
    const units = parseRub(text);
    if (units <= 0n) throw new Error('not positive');
    return units;
  } catch {
    throw new KeyPolicyFormatError('budget', `"${text}" is not a positive amount of RUB (e.g. 100 or 12.50), or off`);
  }
}

/** The largest tokens per minute a key may be given (the column is a 32-bit integer). */
export const maxTokensPerMinute = 1_000_000_000;
/** The most requests in flight a key may be allowed. */
export const maxRequestsInFlight = 100_000;

/** A positive whole number up to `max`, or `none`/`0` (null: no limit). */
function parseLimit(flag: string, text: string, max: number): number | null {
  const value = text.trim();
  if (value === 'none' || value === '0') return null;
  if (/^\d{1,10}$/.test(value) && Number(value) >= 1 && Number(value) <= max) return Number(value);
  throw new KeyPolicyFormatError(flag, `"${text}" is not a whole number from 1 to ${max}, or none (0) for no limit`);
}

/** `--tpm`: tokens per minute (input + output, counted at settle); `none` or 0 removes the limit. */
export function parseTokensPerMinute(text: string): number | null {
  return parseLimit('tpm', text, maxTokensPerMinute);
}

/** `--max-in-flight`: requests of the key at once; `none` or 0 removes the limit. */
export function parseMaxInFlight(text: string): number | null {
  return parseLimit('max-in-flight', text, maxRequestsInFlight);
}

export function parseBudgetPeriod(text: string): BudgetPeriod {
  if (!(budgetPeriods as readonly string[]).includes(text)) throw new KeyPolicyFormatError('budget-period', `"${text}" is not one of ${budgetPeriods.join(', ')}`);
  return text as BudgetPeriod;
}

/** The UTC start (ms) of the budget period containing `now`: day, week (from Monday), month; 0 for total. */
export function periodStart(period: BudgetPeriod, now: number): number {
  if (period === 'total') return 0;
  const date = new Date(now);
  const day = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  if (period === 'day') return day;
  if (period === 'week') return day - ((date.getUTCDay() + 6) % 7) * dayMs;
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

/** The start of the period after the one starting at `start` (null for total). */
export function periodEnd(period: BudgetPeriod, start: number): number | null {
  if (period === 'total') return null;
  if (period === 'day') return start + dayMs;
  if (period === 'week') return start + 7 * dayMs;
  const date = new Date(start);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

const patternCache = new Map<string, RegExp>();

function patternRegExp(pattern: string): RegExp {
  let regexp = patternCache.get(pattern);
  if (!regexp) {
    const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
    regexp = new RegExp(`^${source}$`);
    if (patternCache.size > 10_000) patternCache.clear();
    patternCache.set(pattern, regexp);
  }
  return regexp;
}

/** Whether the key's allowlist (if any) admits the model (its id, or one of the names it was asked by). */
export function modelAllowed(apiKey: ApiKey, ...names: readonly string[]): boolean {
  if (apiKey.models === null) return true;
  return apiKey.models.some((pattern) => names.some((name) => patternRegExp(pattern).test(name)));
}

/** Refuses (403 model_not_allowed) a model outside the key's allowlist. `asked`: the name the request used, if an alias. */
export function assertModelAllowed(apiKey: ApiKey, modelId: string, asked?: string): void {
  if (modelAllowed(apiKey, modelId, ...(asked !== undefined && asked !== modelId ? [asked] : []))) return;
  throw new GatewayError('model_not_allowed', `This API key may not use the model '${modelId}'. Its models: ${apiKey.models!.join(', ')}.`, { param: 'model' });
}

const blockLists = new WeakMap<readonly string[], BlockList>();

/** The key's allowlist as a BlockList, built once per loaded key. */
function allowlistOf(entries: readonly string[]): BlockList {
  let list = blockLists.get(entries);
  if (!list) {
    list = blockListOf(entries);
    blockLists.set(entries, list);
  }
  return list;
}

/**
 * Refuses a key past its expiry (401 api_key_expired) or used from an address outside its
 * allowlist (403 ip_not_allowed). `address`: the client's (src/http/client-address.ts: the TCP
 * peer, or what a proxy of server.trusted_proxies forwarded), already normalized.
 */
export function assertKeyUsable(apiKey: ApiKey, now: number, address: string | undefined): void {
  if (apiKey.expiresAt !== null && now >= apiKey.expiresAt) {
    throw new GatewayError('api_key_expired', `This API key expired at ${new Date(apiKey.expiresAt).toISOString()}. Give it a later expiry on the API keys page of the cabinet, or use another key.`);
  }
  if (apiKey.allowedIps !== null) {
    const client = address ?? '';
    if (!listed(allowlistOf(apiKey.allowedIps), client)) {
      throw new GatewayError('ip_not_allowed', `This API key may not be used from ${client || 'an unknown address'}.`);
    }
  }
}

const periodAdjective: Record<BudgetPeriod, string> = { day: 'daily', week: 'weekly', month: 'monthly', total: 'total' };

/** The refusal of a hold the key's budget does not cover (402 key_budget_exceeded). */
export class KeyBudgetExceededError extends DomainError {
  override readonly catalogCode = 'key_budget_exceeded';

  constructor(
    readonly keyId: string,
    readonly period: BudgetPeriod,
    readonly budgetUnits: bigint,
    readonly neededUnits: bigint,
    readonly spentUnits: bigint,
    readonly resetsAt: number | null,
  ) {
    super(`the budget of API key ${keyId} is spent`);
    this.name = 'KeyBudgetExceededError';
  }

  override toGatewayError(): GatewayError {
    const left = this.budgetUnits - this.spentUnits > 0n ? this.budgetUnits - this.spentUnits : 0n;
    const when = this.resetsAt === null ? 'It is a lifetime budget.' : `It resets at ${new Date(this.resetsAt).toISOString()}.`;
    return new GatewayError(
      this.catalogCode,
      `This API key's ${periodAdjective[this.period]} budget of ${formatRub(this.budgetUnits)} RUB does not cover this request: it needs ${formatRub(this.neededUnits)} RUB and ${formatRub(left)} RUB is left. ${when}`,
    );
  }
}

/** The budget a hold of this key counts against now, or undefined when the key has none. */
export function keyBudget(apiKey: ApiKey, now: number): { keyId: string; period: BudgetPeriod; periodStart: number; limitUnits: bigint } | undefined {
  if (apiKey.budgetUnits === null) return undefined;
  const period = apiKey.budgetPeriod ?? 'month';
  return { keyId: apiKey.id, period, periodStart: periodStart(period, now), limitUnits: apiKey.budgetUnits };
}
