// The admin API's requests and answers as zod schemas (/admin/v1, docs/admin-api.md): the
// handlers validate queries and bodies with the request schemas, and the OpenAPI document
// (openapi.ts) is generated from all of them. The answer schemas are strict: the tests check
// every answer of the API against its schema, so the document cannot drift from what is served.
// Pure: zod and the money parser only.
import { z } from 'zod';
import { auditActions } from '../audit/audit-log.js';
import { budgetPeriods, maxRequestsInFlight, maxTokensPerMinute } from '../auth/key-policy.js';
import { allScopes } from '../auth/scopes.js';
import { usageGroupings } from '../billing/usage-report.js';
import { parseRub } from '../util/money.js';
import { requestSources } from '../observability/request-source.js';
import { requestStatusHint, requestStatusPattern } from './request-log.js';

// ── shared pieces ───────────────────────────────────────────────────────────────────────────

/** RUB as the API writes them: a decimal string with exactly 4 decimals ("12.5000", "-0.0135"). */
export const rubText = z.string().regex(/^-?\d+\.\d{4}$/).describe('RUB, an exact decimal string with 4 decimals');
export const isoTime = z.string().describe('ISO 8601 time, UTC');
const nullableIso = isoTime.nullable();

/** RUB as the API reads them: a string of digits with up to 4 decimals, parsed exactly (never a JSON number). */
export function rubInput(options: { allowNegative: boolean }) {
  return z
    .string()
    .max(40)
    .describe(options.allowNegative ? 'RUB: digits with up to 4 decimals, "-" to remove money (e.g. "-12.5")' : 'RUB: digits with up to 4 decimals (e.g. "100.50")')
    .transform((text, ctx) => {
      try {
        const units = parseRub(text.replace(/^\+/, ''), { allowNegative: options.allowNegative });
        if (units === 0n) ctx.addIssue({ code: 'custom', message: 'the amount must not be zero', input: text });
        return units;
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message, input: text });
        return z.NEVER;
      }
    });
}

export const limit = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback).describe(`at most this many (1-${max}, default ${fallback})`);
/** The `next_cursor` of the previous page: an id to continue below. */
const idCursor = z.string().regex(/^\d{1,15}$/, 'the cursor must be the next_cursor of the previous page').optional().describe('the next_cursor of the previous page');

// ── accounts ────────────────────────────────────────────────────────────────────────────────

export const account = z.strictObject({
  id: z.string(),
  name: z.string(),
  balance_rub: rubText,
  held_rub: rubText,
  available_rub: rubText,
  created_at: isoTime,
  state: z.enum(['enabled', 'disabled']),
  disabled_at: nullableIso,
  disabled_reason: z.string().nullable(),
});
export const accountDetail = account.extend({ webhook_secret: z.string(), keys: z.number().int(), active_keys: z.number().int() });
export const accountChange = account.extend({ changed: z.boolean().describe('false: it was already so, nothing written') });
export const accountList = z.strictObject({ object: z.literal('list'), data: z.array(account), has_more: z.literal(false) });

// ── users (issue 31: the people who log in to the cabinet) ───────────────────────────────────

export const user = z.strictObject({
  id: z.string(),
  email: z.string().nullable(),
  email_verified: z.boolean(),
  name: z.string().nullable(),
  locale: z.enum(['ru', 'en']),
  has_password: z.boolean().describe('whether the user can log in with a password (else only through OIDC or Telegram)'),
  state: z.enum(['enabled', 'disabled']),
  created_at: isoTime,
  last_login_at: nullableIso,
  disabled_at: nullableIso,
});
export const userList = z.strictObject({
  object: z.literal('list'),
  data: z.array(user.extend({ role: z.enum(['owner', 'member']).optional().describe("with ?account=: the user's role in that account") })),
  has_more: z.literal(false),
});
export const usersQuery = z.object({ account: z.string().max(200).optional().describe("an account id or name: only that account's members") });
export const userDetail = user.extend({
  memberships: z.array(z.strictObject({ account_id: z.string(), account_name: z.string(), role: z.enum(['owner', 'member']), joined_at: isoTime })).describe('the accounts the user acts for, oldest first'),
});
export const userChange = user.extend({ changed: z.boolean().describe('false: it was already so, nothing written') });

export const createAccountBody = z.object({ name: z.string().min(1).max(200).describe('unique; letters, digits, spaces or ._@- , not starting with "acc_"') });
export const reasonBody = z.object({ reason: z.string().max(500).nullish().describe('why (kept with the account and in the audit log)') });
export const topupBody = z.object({
  amount_rub: rubInput({ allowNegative: false }),
  kind: z.enum(['topup', 'bonus', 'referral']).default('topup'),
  reason: z.string().max(500).nullish().describe("the ledger row's description"),
});
export const adjustBody = z.object({
  amount_rub: rubInput({ allowNegative: true }),
  reason: z.string().trim().min(1).max(500).describe("why (the ledger row's description and the audit log)"),
});
export const credit = z.strictObject({
  transaction_id: z.string(),
  account_id: z.string(),
  kind: z.enum(['topup', 'bonus', 'referral', 'adjustment']),
  amount_rub: rubText,
  balance_rub: rubText,
  reason: z.string().nullable(),
  audit_id: z.number().int(),
});

export const refundBody = z.object({
  transaction_id: z.string().regex(/^txn_\d{1,18}$/, 'a ledger transaction id such as txn_123').optional().describe("the charge's ledger row (txn_…, as the ledger lists it); give this or request_id"),
  request_id: z.string().min(1).max(200).optional().describe("the charge's request id (x-request-id; for a job, the request that submitted it) or a job id (video_…, music_…); give this or transaction_id"),
  reason: z.string().max(500).nullish().describe("why (the refund's description and the audit log)"),
});
export const refund = z.strictObject({
  transaction_id: z.string().describe('the refund row written'),
  account_id: z.string(),
  kind: z.literal('refund'),
  amount_rub: rubText.describe('the charge, given back whole'),
  balance_rub: rubText,
  request_id: z.string().nullable(),
  job_id: z.string().nullable(),
  charge_transaction_id: z.string().describe('the charge refunded'),
  reason: z.string().nullable(),
  audit_id: z.number().int(),
});

export const transactionsQuery = z.object({
  limit: limit(200, 50),
  cursor: z.string().min(1).max(200).optional().describe('the next_cursor of the previous page'),
});
export const transaction = z.strictObject({
  id: z.string().describe('txn_…'),
  object: z.literal('balance.transaction'),
  created_at: z.number().int().describe('seconds since the epoch'),
  kind: z.enum(['charge', 'refund', 'topup', 'bonus', 'referral', 'adjustment']),
  amount_rub: rubText,
  balance_after_rub: rubText,
  model: z.string().nullable(),
  description: z.string().nullable(),
  request_id: z.string().nullable(),
  refunded_by: z.string().nullable().describe("a charge given back: the refund's id (txn_…); null for a charge not refunded and for every other kind"),
});
export const transactionPage = z.strictObject({ object: z.literal('list'), data: z.array(transaction), has_more: z.boolean(), next_cursor: z.string().nullable() });

export const loginLink = z.strictObject({
  url: z.string().nullable().describe("the link to open: cabinet.public_url, else the address of a serve running on the answering instance's machine, + path; null when neither is known"),
  path: z.string().describe('/cabinet/login#token=gwl_…: the token is in the fragment, which browsers never send'),
  expires_at: isoTime.describe('it opens one session, once, until then (cabinet.link_ttl)'),
});

// ── keys ────────────────────────────────────────────────────────────────────────────────────

const keyFields = {
  id: z.string(),
  account_id: z.string(),
  name: z.string().nullable(),
  prefix: z.string(),
  last4: z.string(),
  scopes: z.array(z.enum(allScopes)),
  rpm: z.number().int().nullable(),
  tpm: z.number().int().nullable().describe('tokens per minute (input + output, counted at settle); null: no limit'),
  max_in_flight: z.number().int().nullable().describe('requests in flight at once at most; null: no limit'),
  expires_at: nullableIso,
  models: z.array(z.string()).nullable(),
  allowed_ips: z.array(z.string()).nullable(),
  budget_rub: rubText.nullable(),
  budget_period: z.enum(budgetPeriods).nullable(),
};
export const apiKey = z.strictObject({
  ...keyFields,
  created_at: isoTime,
  last_used_at: nullableIso,
  revoked_at: nullableIso,
  purpose: z.enum(['api', 'cabinet', 'bot']).describe("cabinet: the key the account's web cabinet acts through; bot: the Telegram bot's"),
  status: z.enum(['active', 'revoked', 'expired']),
});
export const keyList = z.strictObject({ object: z.literal('list'), data: z.array(apiKey), has_more: z.literal(false) });
export const createdKey = z.strictObject({ ...keyFields, key: z.string().describe('the secret: shown this once, stored only as a hash') });
export const createKeyBody = z.object({
  name: z.string().max(200).nullish(),
  scopes: z.array(z.enum(allScopes)).min(1).optional().describe('default: every scope'),
  rpm: z.number().int().min(1).max(1_000_000).nullish().describe('requests per minute (default: rate_limit.requests_per_minute)'),
  tpm: z.number().int().min(0).max(maxTokensPerMinute).nullish().describe('tokens per minute (input + output, counted at settle; 429 once reached); null or 0: no limit'),
  max_in_flight: z.number().int().min(0).max(maxRequestsInFlight).nullish().describe('requests of the key in flight at once at most (429 beyond); null or 0: no limit'),
  expires: z.string().max(100).optional().describe('a duration from now (30d, 12h, 90m, 2w), a date (2027-01-31: 00:00 UTC), an ISO time with zone, or never'),
  models: z.array(z.string().max(200)).min(1).max(100).nullish().describe('model ids or glob patterns the key may use; null: any'),
  allowed_ips: z.array(z.string().max(64)).min(1).max(100).nullish().describe('IPv4/IPv6 addresses or CIDR blocks; null: any'),
  budget_rub: z.string().max(40).nullish().describe('spending budget per budget_period (charged + held); null: none'),
  budget_period: z.enum(budgetPeriods).optional().describe('default month'),
});

export const updateKeyBody = z.object({
  name: z.string().max(200).nullish().describe('a label; null: none'),
  scopes: z.array(z.enum(allScopes)).min(1).optional(),
  rpm: z.number().int().min(1).max(1_000_000).nullish().describe('requests per minute; null: rate_limit.requests_per_minute'),
  tpm: z.number().int().min(0).max(maxTokensPerMinute).nullish().describe('tokens per minute (input + output, counted at settle); null or 0: no limit'),
  max_in_flight: z.number().int().min(0).max(maxRequestsInFlight).nullish().describe('requests of the key in flight at once at most; null or 0: no limit'),
  expires: z.string().max(100).nullish().describe('a duration from now (30d, 12h, 90m, 2w), a date (2027-01-31: 00:00 UTC), an ISO time with zone; never or null: no expiry'),
  models: z.array(z.string().max(200)).min(1).max(100).nullish().describe('model ids or glob patterns the key may use; null: any'),
  allowed_ips: z.array(z.string().max(64)).min(1).max(100).nullish().describe('IPv4/IPv6 addresses or CIDR blocks; null: any'),
  budget_rub: z.string().max(40).nullish().describe('spending budget per budget_period (charged + held); null: none. A new amount keeps the key\'s period unless budget_period is given'),
  budget_period: z.enum(budgetPeriods).optional(),
});
const keyControlNames = ['scopes', 'expires_at', 'models', 'allowed_ips', 'budget_rub', 'budget_period', 'rpm', 'tpm', 'max_in_flight', 'name'] as const;
export const updatedKey = apiKey.extend({ changed: z.array(z.enum(keyControlNames)).describe('the controls this change altered (empty: none)') });

// ── request log ─────────────────────────────────────────────────────────────────────────────

export const requestLogQuery = z.object({
  status: z
    .string()
    .regex(requestStatusPattern, 'the status must be a code (502), a class (5xx), error (400 and above), failed or ok')
    .optional()
    .describe(requestStatusHint),
  model: z.string().max(200).optional(),
  key: z.string().max(40).optional().describe('a key id'),
  account: z.string().max(200).optional().describe('an account id or name'),
  source: z.enum(requestSources).optional().describe("api: the API's traffic (/v1/…); cabinet: the calls the web cabinet's pages make (/cabinet/api/…); bot: the Telegram bot's"),
  since: z.string().max(40).optional().describe('answered at or after: YYYY-MM-DD (UTC midnight) or an ISO 8601 time with its zone'),
  until: z.string().max(40).optional().describe('answered before: YYYY-MM-DD (UTC midnight) or an ISO 8601 time with its zone'),
  limit: limit(500, 50),
  cursor: idCursor,
});
export const requestLogEntry = z.strictObject({
  id: z.number().int(),
  request_id: z.string(),
  created_at: isoTime,
  method: z.string(),
  route: z.string(),
  source: z.enum(requestSources).describe("api: the API's traffic (/v1/…); cabinet: the web cabinet's page calls (/cabinet/api/…); bot: the Telegram bot's"),
  status: z.number().int(),
  duration_ms: z.number(),
  model: z.string().nullable(),
  account_id: z.string().nullable(),
  key_id: z.string().nullable(),
  provider: z.string().nullable(),
  charged_rub: rubText,
  error: z
    .strictObject({
      code: z.string(),
      message: z.string().nullable(),
      upstream_status: z.string().nullable().describe("the upstream's status when an upstream failed: 502, 429, timeout, connect_error, stream_error"),
    })
    .nullable(),
});
export const requestLogPage = z.strictObject({ object: z.literal('list'), data: z.array(requestLogEntry), has_more: z.boolean(), next_cursor: z.string().nullable() });

// ── jobs ────────────────────────────────────────────────────────────────────────────────────

export const jobsQuery = z.object({
  status: z.enum(['queued', 'in_progress', 'completed', 'failed', 'cancelled']).optional(),
  kind: z.enum(['video', 'video_upscale', 'music', 'response']).optional(),
  account: z.string().max(200).optional().describe('an account id or name'),
  limit: limit(1000, 50),
});
/** A job: its public object (the OpenAI video object, or the music object) plus kind and account. */
export const jobSummary = z.looseObject({
  id: z.string(),
  object: z.enum(['video', 'music']),
  status: z.string(),
  model: z.string(),
  created_at: z.number().int().describe('seconds since the epoch'),
  charged_rub: rubText,
  held_rub: rubText,
  kind: z.enum(['video', 'video_upscale', 'music', 'response']),
  account_id: z.string(),
});
export const jobList = z.strictObject({ object: z.literal('list'), data: z.array(jobSummary), has_more: z.boolean() });
export const cancelledJob = z.looseObject({
  id: z.string(),
  kind: z.enum(['video', 'video_upscale', 'music', 'response']),
  account_id: z.string(),
  internal_status: z.literal('cancelled'),
  hold_rub: rubText,
  cancelled: z.literal(true),
});

// ── upstreams, system ───────────────────────────────────────────────────────────────────────

export const upstreamList = z.strictObject({
  object: z.literal('list'),
  instance: z.string().describe('the instance (instance.hostname) that answered: these figures are its own'),
  window_seconds: z.number().int(),
  data: z.array(
    z.strictObject({
      route: z.string().describe('provider:upstream model'),
      provider: z.string(),
      upstream_model: z.string(),
      models: z.array(z.string()).describe("the gateway's models routed here"),
      cooldown_until: nullableIso.describe('the upstream asked for a pause (Retry-After) until then; null: none'),
      calls: z.number().int(),
      errors: z.number().int(),
      latency_ms: z.strictObject({ p50: z.number().int(), p95: z.number().int(), max: z.number().int() }).nullable(),
      recent_errors: z.array(
        z.strictObject({
          at: isoTime,
          status: z.string(),
          message: z.string(),
          model: z.string(),
          operation: z.string(),
          request_id: z.string().nullable(),
          job_id: z.string().nullable(),
        }),
      ),
    }),
  ),
  has_more: z.literal(false),
});

export const system = z.strictObject({
  version: z.string(),
  node_version: z.string(),
  instance: z.string().describe('the instance (instance.hostname) that answered'),
  database: z.strictObject({ kind: z.enum(['sqlite', 'postgres']), up: z.boolean() }),
  redis: z.enum(['up', 'down', 'not_configured']),
  jobs: z.strictObject({
    queue: z.array(z.strictObject({ kind: z.string(), status: z.enum(['queued', 'in_progress']), count: z.number().int() })).describe('jobs waiting or running, by kind and status'),
  }),
});

// ── usage, audit ────────────────────────────────────────────────────────────────────────────

export const usageQuery = z.object({
  since: z.string().max(40).describe('start, inclusive: YYYY-MM-DD (UTC midnight) or an ISO 8601 time with its zone'),
  until: z.string().max(40).optional().describe('end, exclusive (default: now)'),
  by: z.enum(usageGroupings).default('model'),
  account: z.string().max(200).optional().describe('an account id or name'),
});
const usageCounts = {
  requests: z.number().int(),
  input_tokens: z.number().int(),
  cached_input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  reasoning_tokens: z.number().int(),
  media_requests: z.number().int(),
  images: z.number().int(),
  characters: z.number().int().describe('characters of speech'),
  audio_seconds: z.number().describe('seconds of audio transcribed or made'),
  video_seconds: z.number().describe('seconds of video made'),
  charged_rub: rubText,
};
export const usage = z.strictObject({
  object: z.literal('list'),
  data: z.array(z.looseObject(usageCounts).describe('plus the group, named as `by`: model, key, account or day')),
  has_more: z.literal(false),
  by: z.enum(usageGroupings),
  since: isoTime,
  until: isoTime,
  account_id: z.string().nullable(),
  totals: z.strictObject(usageCounts),
});

export const auditQuery = z.object({
  account: z.string().max(200).optional().describe('an account id or name'),
  action: z.enum(auditActions).optional(),
  limit: limit(1000, 50),
  cursor: idCursor,
});
export const auditEntry = z.strictObject({
  id: z.number().int(),
  at: isoTime,
  actor: z.string().describe('cli:<user>@<host>, admin-token:<id> or cabinet:<session id>'),
  action: z.enum(auditActions),
  target: z.string(),
  account_id: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
});
export const auditPage = z.strictObject({ object: z.literal('list'), data: z.array(auditEntry), has_more: z.boolean(), next_cursor: z.string().nullable() });

export const errorBody = z.strictObject({
  error: z.strictObject({ message: z.string(), type: z.string(), code: z.string().nullable(), param: z.string().nullable() }),
  detail: z.array(z.looseObject({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() })).optional().describe('422 only: each field at fault'),
});

// ── sign-up invite codes ────────────────────────────────────────────────────────────────────

export const invitesQuery = z.object({
  all: z.enum(['true', 'false']).optional().describe('true: used, revoked and expired codes too (default: only those that still work)'),
});
export const invite = z.strictObject({
  id: z.string(),
  last4: z.string().describe('the last four characters of the code (the code itself is never shown again)'),
  status: z.enum(['active', 'used', 'revoked', 'expired']),
  created_by: z.string(),
  created_at: isoTime,
  expires_at: nullableIso,
  used_at: nullableIso,
  used_by: z.string().nullable().describe('the user the code made'),
  revoked_at: nullableIso,
});
export const inviteList = z.strictObject({ object: z.literal('list'), data: z.array(invite), has_more: z.literal(false) });
export const createdInviteList = z.strictObject({
  object: z.literal('list'),
  data: z.array(invite.extend({ code: z.string().describe('the code (gwi_…): shown this once, stored only as a hash') })),
  has_more: z.literal(false),
});
export const createInvitesBody = z.object({
  count: z.number().int().min(1).max(1000).optional().describe('how many codes (default 1)'),
  expires: z.string().max(100).optional().describe('when the codes stop working: a duration from now (30d, 12h, 2w), a date (2027-01-31: 00:00 UTC), an ISO time with zone, or never (default 30d)'),
});

// ── redemption codes (issue 32; docs/payments.md, "Redemption codes") ────────────────────────

export const codeBatch = z.strictObject({
  id: z.string().describe('cbat_…'),
  amount_rub: rubText.describe('what one redemption credits (a bonus ledger row)'),
  uses_per_code: z.number().int().describe('accounts each code may credit, once each'),
  count: z.number().int().describe('codes in the batch'),
  redeemed: z.number().int().describe('redemptions of its codes so far'),
  expires_at: nullableIso,
  disabled_at: nullableIso,
  note: z.string().nullable().describe('the operator\'s note; the customer who redeems a code sees it too'),
  created_by: z.string(),
  created_at: isoTime,
});
export const redemptionCode = z.strictObject({
  id: z.string().describe('code_…'),
  hint: z.string().describe('the last four characters of the code (the code itself is never shown again)'),
  uses_left: z.number().int(),
  disabled_at: nullableIso,
  redemptions: z.number().int().describe('accounts that redeemed it so far'),
});
export const codeBatchList = z.strictObject({ object: z.literal('list'), data: z.array(codeBatch), has_more: z.literal(false) });
export const codeBatchDetail = codeBatch.extend({ codes: z.array(redemptionCode).describe('every code of the batch, in the order made') });
export const createdCodeBatch = z.strictObject({
  batch: codeBatch,
  codes: z.array(z.string()).describe('the codes (ABCD-EFGH-JKLM-NPQR-STUV): shown this once, stored only as hashes'),
});
export const createCodesBody = z.strictObject({
  amount_rub: rubInput({ allowNegative: false }).describe('RUB each redemption credits: digits with up to 4 decimals (e.g. "500")'),
  count: z.number().int().min(1).max(10_000).describe('how many codes (1-10000)'),
  expires: z.string().max(100).optional().describe('when the codes stop working: a duration from now (30d, 12h, 2w), a date (2027-01-31: 00:00 UTC), an ISO time with zone, or never (default never)'),
  uses: z.number().int().min(1).max(1_000_000).optional().describe('how many accounts each code may credit, once each (default 1)'),
  note: z.string().max(200).optional().describe('what the batch is for; the customer who redeems a code sees it too'),
});
export const disabledCodes = z.union([codeBatch, redemptionCode]).describe('the batch (a cbat_… id) or the code (a code_… id) as it is now');
