// The admin API's OpenAPI 3.1 document (GET /admin/v1/openapi.json), generated from the zod
// schemas the handlers validate with and the answer schemas the tests check every answer
// against (schemas.ts). `adminOperations` lists every route under /admin/v1 once; a test keeps
// it equal to the route table's /admin/v1 rows (nothing undocumented, nothing extra), scopes
// included: each operation's security names the admin token scope it needs (OpenAPI 3.1 lets
// a bearer scheme list the roles required).
import { z } from 'zod';
import type { AdminScope } from '../cabinet/admin-scopes.js';
import type { ErrorCode } from '../errors/catalog.js';
import { errorCatalog } from '../errors/catalog.js';
import * as paymentSchemas from './payment-schemas.js';
import * as schemas from './schemas.js';

export interface AdminOperation {
  readonly method: 'GET' | 'POST' | 'PATCH';
  /** As the route table writes it (`:id` parameters). */
  readonly path: string;
  readonly operationId: string;
  readonly tag: 'accounts' | 'users' | 'keys' | 'codes' | 'requests' | 'jobs' | 'payments' | 'status' | 'reports' | 'meta';
  readonly summary: string;
  /** The admin token scope the route needs (as its route table row says); null only for the public document. */
  readonly scope: AdminScope | null;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  readonly success: { readonly status: 200 | 201; readonly schema: z.ZodType; readonly description: string };
  /** Refusals beyond those of every admin route (401, 403: credentials, session kind, CSRF, scope). */
  readonly errors: readonly ErrorCode[];
  /** No credentials needed (the document itself). */
  readonly public?: true;
}

const account = '/admin/v1/accounts/:id';

export const adminOperations: readonly AdminOperation[] = [
  { method: 'GET', path: '/admin/v1/accounts', operationId: 'listAccounts', tag: 'accounts', scope: 'read', summary: 'Every account with its balance, held and available money', success: { status: 200, schema: schemas.accountList, description: 'the accounts, oldest first' }, errors: [] },
  { method: 'POST', path: '/admin/v1/accounts', operationId: 'createAccount', tag: 'accounts', scope: 'accounts', summary: 'Create an account (audited: account.create)', body: schemas.createAccountBody, success: { status: 201, schema: schemas.account, description: 'the new account' }, errors: ['validation_error', 'account_exists'] },
  { method: 'GET', path: account, operationId: 'showAccount', tag: 'accounts', scope: 'admin', summary: 'One account by id or name, with its webhook signing secret and key counts', success: { status: 200, schema: schemas.accountDetail, description: 'the account' }, errors: ['not_found'] },
  { method: 'POST', path: `${account}/disable`, operationId: 'disableAccount', tag: 'accounts', scope: 'accounts', summary: 'Disable an account: its keys are refused (403 account_disabled) from their next request (audited: account.disable)', body: schemas.reasonBody, success: { status: 200, schema: schemas.accountChange, description: 'the account; changed: false when it was already disabled (no audit row)' }, errors: ['validation_error', 'not_found'] },
  { method: 'POST', path: `${account}/enable`, operationId: 'enableAccount', tag: 'accounts', scope: 'accounts', summary: 'Enable a disabled account (audited: account.enable)', body: schemas.reasonBody, success: { status: 200, schema: schemas.accountChange, description: 'the account; changed: false when it was not disabled (no audit row)' }, errors: ['validation_error', 'not_found'] },
  { method: 'POST', path: `${account}/topup`, operationId: 'topupAccount', tag: 'accounts', scope: 'money', summary: 'Add money: a topup, bonus or referral credit in the ledger (audited: balance.topup)', body: schemas.topupBody, success: { status: 200, schema: schemas.credit, description: 'the ledger row written and the balance after it' }, errors: ['validation_error', 'not_found'] },
  { method: 'POST', path: `${account}/adjust`, operationId: 'adjustAccount', tag: 'accounts', scope: 'money', summary: 'Correct a balance by a positive or negative amount with a reason; refused when it would take more than the available money (audited: balance.adjust)', body: schemas.adjustBody, success: { status: 200, schema: schemas.credit, description: 'the ledger row written and the balance after it' }, errors: ['validation_error', 'not_found', 'adjustment_refused'] },
  { method: 'GET', path: `${account}/transactions`, operationId: 'listTransactions', tag: 'accounts', scope: 'read', summary: "An account's ledger, newest first: the rows of `gateway balance history`, each charge with the refund that gave it back", query: schemas.transactionsQuery, success: { status: 200, schema: schemas.transactionPage, description: 'one page; pass next_cursor as cursor for the next' }, errors: ['validation_error', 'not_found'] },
  { method: 'POST', path: `${account}/refund`, operationId: 'refundCharge', tag: 'accounts', scope: 'money', summary: 'Give back one charge of the account, whole and once, named by its ledger row (transaction_id) or by its request or job id (request_id), as `gateway balance refund` does (audited: balance.refund)', body: schemas.refundBody, success: { status: 200, schema: schemas.refund, description: 'the refund row written and the balance after it' }, errors: ['validation_error', 'not_found', 'already_refunded'] },
  { method: 'POST', path: `${account}/login-link`, operationId: 'createLoginLink', tag: 'accounts', scope: 'admin', summary: "A one-time login link to the account's cabinet, as `gateway cabinet link --account A --json` prints it: it opens one session, once, within cabinet.link_ttl (audited: login_link.create)", success: { status: 201, schema: schemas.loginLink, description: 'the link; send it privately: whoever opens it first is logged in' }, errors: ['not_found'] },
  { method: 'GET', path: `${account}/keys`, operationId: 'listKeys', tag: 'keys', scope: 'read', summary: "An account's API keys (never their secrets)", success: { status: 200, schema: schemas.keyList, description: 'the keys, oldest first' }, errors: ['not_found'] },
  { method: 'POST', path: `${account}/keys`, operationId: 'createKey', tag: 'keys', scope: 'keys', summary: 'Create an API key; its secret is in this answer only (audited: key.create)', body: schemas.createKeyBody, success: { status: 201, schema: schemas.createdKey, description: 'the key with its secret' }, errors: ['validation_error', 'not_found'] },
  { method: 'PATCH', path: '/admin/v1/keys/:id', operationId: 'updateKey', tag: 'keys', scope: 'keys', summary: "Change a key's controls (scopes, name, rpm, tpm, max_in_flight, expiry, models, allowed_ips, budget) without reissuing its secret; what the body leaves out stays. Seen from the key's next request in every process (audited: key.update, with what changed)", body: schemas.updateKeyBody, success: { status: 200, schema: schemas.updatedKey, description: 'the key as it is now, and which controls changed' }, errors: ['validation_error', 'not_found'] },
  { method: 'POST', path: '/admin/v1/keys/:id/revoke', operationId: 'revokeKey', tag: 'keys', scope: 'keys', summary: 'Revoke an API key: refused from its next request (audited: key.revoke, once)', success: { status: 200, schema: schemas.apiKey, description: 'the key; a second revocation keeps the first time' }, errors: ['not_found'] },
  { method: 'GET', path: '/admin/v1/users', operationId: 'listUsers', tag: 'users', scope: 'accounts', summary: "The users who log in to the cabinet (never a password), oldest first; ?account= only that account's members", query: schemas.usersQuery, success: { status: 200, schema: schemas.userList, description: 'the users' }, errors: ['validation_error', 'not_found'] },
  { method: 'GET', path: '/admin/v1/users/:id', operationId: 'showUser', tag: 'users', scope: 'accounts', summary: 'One user with the accounts they act for and their role in each', success: { status: 200, schema: schemas.userDetail, description: 'the user' }, errors: ['not_found'] },
  { method: 'POST', path: '/admin/v1/users/:id/disable', operationId: 'disableUser', tag: 'users', scope: 'accounts', summary: "Disable a user: their sessions end at once and they cannot log in; their accounts keep working for the other members (audited: user.disable)", success: { status: 200, schema: schemas.userChange, description: 'the user; changed: false when they were already disabled (no audit row)' }, errors: ['not_found'] },
  { method: 'POST', path: '/admin/v1/users/:id/enable', operationId: 'enableUser', tag: 'users', scope: 'accounts', summary: 'Enable a disabled user (audited: user.enable)', success: { status: 200, schema: schemas.userChange, description: 'the user; changed: false when they were not disabled (no audit row)' }, errors: ['not_found'] },
  { method: 'GET', path: '/admin/v1/request-log', operationId: 'listRequestLog', tag: 'requests', scope: 'read', summary: "The request log, newest first, with each failure's error and upstream status", query: schemas.requestLogQuery, success: { status: 200, schema: schemas.requestLogPage, description: 'one page; pass next_cursor as cursor for the next' }, errors: ['validation_error', 'not_found'] },
  { method: 'GET', path: '/admin/v1/jobs', operationId: 'listJobs', tag: 'jobs', scope: 'read', summary: 'Async jobs (videos, upscales, music) of every account, newest first', query: schemas.jobsQuery, success: { status: 200, schema: schemas.jobList, description: 'the jobs; has_more: more beyond limit' }, errors: ['validation_error', 'not_found'] },
  { method: 'POST', path: '/admin/v1/jobs/:id/cancel', operationId: 'cancelJob', tag: 'jobs', scope: 'money', summary: 'Cancel a queued or running job: its hold released, nothing charged (audited: job.cancel)', success: { status: 200, schema: schemas.cancelledJob, description: "the job as `gateway jobs show` prints it, and cancelled: true" }, errors: ['not_found', 'job_already_ended'] },
  { method: 'GET', path: '/admin/v1/upstreams', operationId: 'listUpstreams', tag: 'status', scope: 'read', summary: "Each upstream route's calls, failures and latency over the last 15 minutes and its pause, as the answering instance saw them", success: { status: 200, schema: schemas.upstreamList, description: 'every route of the catalog' }, errors: [] },
  { method: 'GET', path: '/admin/v1/system', operationId: 'showSystem', tag: 'status', scope: 'read', summary: 'Version, database, Redis and the job queue', success: { status: 200, schema: schemas.system, description: 'the state of the gateway' }, errors: [] },
  { method: 'GET', path: '/admin/v1/usage', operationId: 'usageReport', tag: 'reports', scope: 'read', summary: 'The `gateway usage` report: requests, tokens and RUB charged over a period, by model, key, account or day', query: schemas.usageQuery, success: { status: 200, schema: schemas.usage, description: 'the report and its totals' }, errors: ['validation_error', 'not_found'] },
  { method: 'GET', path: '/admin/v1/audit', operationId: 'listAudit', tag: 'reports', scope: 'read', summary: 'The audit log of operator changes, newest first', query: schemas.auditQuery, success: { status: 200, schema: schemas.auditPage, description: 'one page; pass next_cursor as cursor for the next' }, errors: ['validation_error', 'not_found'] },
  { method: 'GET', path: '/admin/v1/invites', operationId: 'listInvites', tag: 'accounts', scope: 'read', summary: 'Sign-up invite codes (cabinet.signup: invite) that still work, or all with all=true (never the codes)', query: schemas.invitesQuery, success: { status: 200, schema: schemas.inviteList, description: 'the invites, oldest first' }, errors: ['validation_error'] },
  { method: 'POST', path: '/admin/v1/invites', operationId: 'createInvites', tag: 'accounts', scope: 'accounts', summary: 'Create sign-up invite codes, each making one account once; the codes are in this answer only (audited: invite.create)', body: schemas.createInvitesBody, success: { status: 201, schema: schemas.createdInviteList, description: 'the new invites with their codes' }, errors: ['validation_error'] },
  { method: 'POST', path: '/admin/v1/invites/:id/revoke', operationId: 'revokeInvite', tag: 'accounts', scope: 'accounts', summary: 'Revoke an unused invite code (audited: invite.revoke, once; a used code stays used)', success: { status: 200, schema: schemas.invite, description: 'the invite' }, errors: ['not_found'] },
  { method: 'GET', path: '/admin/v1/codes', operationId: 'listCodeBatches', tag: 'codes', scope: 'read', summary: 'Batches of redemption codes, newest first, each with its redemptions so far (never a code)', success: { status: 200, schema: schemas.codeBatchList, description: 'the batches' }, errors: [] },
  { method: 'POST', path: '/admin/v1/codes', operationId: 'createCodes', tag: 'codes', scope: 'money', summary: 'Create a batch of redemption codes, each crediting `amount_rub` as a bonus to up to `uses` accounts, once each; the codes are in this answer only, stored as hashes (audited: code_batch.create)', body: schemas.createCodesBody, success: { status: 201, schema: schemas.createdCodeBatch, description: 'the batch and its codes' }, errors: ['validation_error'] },
  { method: 'GET', path: '/admin/v1/codes/:batchId', operationId: 'showCodeBatch', tag: 'codes', scope: 'read', summary: 'One batch with its codes: hint (last four characters), uses left, disabled, redemptions (never a code)', success: { status: 200, schema: schemas.codeBatchDetail, description: 'the batch and its codes' }, errors: ['not_found'] },
  { method: 'POST', path: '/admin/v1/codes/:id/disable', operationId: 'disableCodes', tag: 'codes', scope: 'money', summary: 'Disable a whole batch (cbat_…) or one code (code_…): it credits nothing from then on; what was redeemed stays (audited: code_batch.disable or code.disable, once)', success: { status: 200, schema: schemas.disabledCodes, description: 'the batch or the code; disabling it again keeps the first time' }, errors: ['not_found'] },
  { method: 'GET', path: '/admin/v1/payments', operationId: 'listPayments', tag: 'payments', scope: 'read', summary: "Customers' payments (top-ups through YooKassa or Stripe), newest first, each with its account, the receipt's email and its refunds", query: paymentSchemas.paymentsQuery, success: { status: 200, schema: paymentSchemas.paymentList, description: 'one page; has_more: pass the last id as before for the next' }, errors: ['validation_error', 'not_found'] },
  { method: 'GET', path: '/admin/v1/payments/:id', operationId: 'showPayment', tag: 'payments', scope: 'read', summary: 'One payment with its refunds, as stored (`gateway reconcile payments` compares it with the provider)', success: { status: 200, schema: paymentSchemas.payment, description: 'the payment' }, errors: ['not_found'] },
  { method: 'POST', path: '/admin/v1/payments/:id/refund', operationId: 'refundPayment', tag: 'payments', scope: 'money', summary: "Refund a succeeded payment to the customer's card through its provider: the money leaves the balance first (a `refund` row), refused while it is spent unless allow_spent takes the balance to zero, never below (audited: payment.refund)", body: paymentSchemas.refundPaymentBody, success: { status: 201, schema: paymentSchemas.paymentRefund, description: 'the refund: succeeded, pending (the provider has not finished; the sweeper asks again) or failed (refused by the provider: the money is back on the balance)' }, errors: ['validation_error', 'not_found', 'payment_not_refundable', 'refund_exceeds_available', 'payment_provider_unavailable'] },
  { method: 'GET', path: '/admin/v1/openapi.json', operationId: 'openApiDocument', tag: 'meta', scope: null, summary: 'This document (no credentials needed)', success: { status: 200, schema: z.looseObject({ openapi: z.literal('3.1.0') }), description: 'the OpenAPI 3.1 document' }, errors: [], public: true },
];

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/** `/admin/v1/accounts/:id` → `/admin/v1/accounts/{id}`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

function parameters(operation: AdminOperation): JsonSchema[] {
  const inPath = [...operation.path.matchAll(/:([A-Za-z_]+)/g)].map((match) => ({
    name: match[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
    description: operation.path.startsWith('/admin/v1/accounts/') ? 'account id (acc_…) or name' : 'id',
  }));
  const inQuery = Object.entries(operation.query?.shape ?? {}).map(([name, field]) => {
    const schema = jsonSchema(field as z.ZodType, 'input');
    const { description, ...rest } = schema;
    return { name, in: 'query', required: !(field as z.ZodType).safeParse(undefined).success, schema: rest, ...(description ? { description } : {}) };
  });
  return [...inPath, ...inQuery];
}

const errorResponse = (code: ErrorCode) => ({ description: `${code}: ${errorCatalog[code].description}`, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

export function openApiDocument(version: string): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of adminOperations) {
    const responses: Record<string, unknown> = {
      [operation.success.status]: { description: operation.success.description, content: { 'application/json': { schema: jsonSchema(operation.success.schema, 'output') } } },
    };
    // Every admin route: no credentials or a bad token (401), an account's session or a token without the route's scope (403), and a cookie without its CSRF token on a change (403).
    const codes: ErrorCode[] = operation.public ? [] : ['session_required', 'admin_token_invalid', 'forbidden', 'admin_scope_missing', ...(operation.method === 'GET' ? [] : (['csrf_token_invalid'] as const))];
    for (const code of [...codes, ...operation.errors]) {
      const status = String(errorCatalog[code].status);
      // One response per status: codes that share one are listed in its description.
      const existing = responses[status] as { description: string } | undefined;
      responses[status] = existing ? { ...existing, description: `${existing.description}; ${errorResponse(code).description}` } : errorResponse(code);
    }
    paths[openApiPath(operation.path)] ??= {};
    paths[openApiPath(operation.path)]![operation.method.toLowerCase()] = {
      operationId: operation.operationId,
      tags: [operation.tag],
      summary: operation.summary,
      // A token needs the route's scope; an operator's session holds every scope.
      security: operation.scope === null ? [] : [{ adminToken: [operation.scope] }, { adminSession: [] }],
      parameters: parameters(operation),
      ...(operation.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(operation.body, 'input') } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'gateway admin API',
      version,
      description:
        'The operator\'s API (docs/admin-api.md): accounts, money, keys, the request log, jobs, payments, upstream health, the system, usage and the audit log. ' +
        'Every change is made through the service the `gateway` CLI uses and written to the audit log with its actor. Money is exact: RUB as decimal strings with 4 decimals.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/' }],
    security: [{ adminToken: [] }, { adminSession: [] }],
    tags: [
      { name: 'accounts' },
      { name: 'users', description: "the people who log in to the cabinet and the accounts they act for; scope accounts, reads included (addresses are personal data)" },
      { name: 'keys' },
      { name: 'codes', description: 'redemption codes: batches the operator hands out, each code crediting a bonus once per account (docs/payments.md)' },
      { name: 'requests' },
      { name: 'jobs' },
      { name: 'payments', description: "customers' own top-ups and their refunds (docs/payments.md)" },
      { name: 'status', description: 'upstream health is per instance: each process answers for the calls it made' },
      { name: 'reports' },
      { name: 'meta' },
    ],
    paths,
    components: {
      securitySchemes: {
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'gwa_…',
          description:
            'an admin token (`gateway admin tokens create --scopes …`). Each operation lists the one scope it needs: read (a GET revealing no secret), accounts, keys, money (anything moving or releasing money), admin (secrets); without it, 403 admin_scope_missing. Tokens made before scopes existed hold all five.',
        },
        adminSession: { type: 'apiKey', in: 'cookie', name: 'gateway_session', description: 'an admin session of the web console (it holds every scope); a request other than GET/HEAD also sends x-csrf-token' },
      },
      schemas: { Error: jsonSchema(schemas.errorBody, 'output') },
    },
  };
}
