// THE list of errors the gateway reports (issue 15: one catalog). Each code says once what it
// is on the wire: the HTTP status, OpenAI's `error.type`, Anthropic's where it differs, whether
// `x-should-retry` is sent, and one line for docs/errors.md (test/errors/catalog-docs.test.ts
// keeps that table in step with this one). Every layer throws a GatewayError by one of these
// codes (src/errors/gateway-error.ts); the HTTP shell and the CLI render it. Pure: imports nothing.

export interface CatalogEntry {
  /** HTTP status. The CLI, which has none, still reads it: 4xx is the user's to fix. */
  readonly status: number;
  /** OpenAI's `error.type` (the CLI's own codes carry the type their status would have). */
  readonly type: string;
  /** Anthropic's `error.type` where it is not `type` (e.g. 404 `not_found_error`). */
  readonly anthropicType?: string;
  /**
   * `x-should-retry`: true/false is sent as such; `varies`: the thrown error says (the upstream's
   * own judgement); null: not sent, the SDKs decide by the status.
   */
  readonly retryable: boolean | 'varies' | null;
  /** Where it can be seen: the HTTP API, the CLI, or both. */
  readonly seenIn: 'http' | 'cli' | 'http, cli';
  /** One line for docs/errors.md: when it happens. */
  readonly description: string;
  /** Other statuses the same code takes (the body parser's own 4xx); only for the docs. */
  readonly otherStatuses?: readonly number[];
  /** The body's `code` is null (OpenAI's own 500s have none); the catalog still names it. */
  readonly nullCodeInBody?: true;
  /** The CLI's exit status when a command ends with it (default 1; sysexits' EX_CONFIG for the configuration). */
  readonly exitCode?: number;
}

export const errorCatalog = {
  // 400
  invalid_request: {
    status: 400, otherStatuses: [405, 415], type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: 'a request the body parser refuses (aborted, unknown charset or encoding: its own 4xx), or a known path with the wrong method (405)',
  },
  invalid_content_encoding: {
    status: 400, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: 'a body whose `Content-Encoding` (gzip, deflate, br) does not decode (the message names the encoding)',
  },
  malformed_multipart: {
    status: 400, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: 'a multipart body cut short, without `boundary`, or with a broken part header (the message says which)',
  },
  upload_interrupted: {
    status: 400, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: 'the client closed the connection before its upload ended (logged; nothing of it is kept)',
  },
  // Refused at the HTTP layer, before any route (src/http/parser-refusals.ts: OpenAI's shape, the connection closed after it; a missing Host: requestContext).
  malformed_http_request: {
    status: 400, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: 'the request is not valid HTTP/1.1: a bad chunk size, both `Content-Length` and `Transfer-Encoding`, two `Content-Length`s, a character not allowed in a header, no `Host`, a body cut short by the client (the message says which)',
  },
  request_timeout: {
    status: 408, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: 'the headers did not arrive within `server.headers_timeout`, or the whole request within `server.request_timeout`',
  },
  chunk_extensions_too_large: {
    status: 413, type: 'invalid_request_error', anthropicType: 'request_too_large', retryable: null, seenIn: 'http',
    description: "a chunk of a chunked body whose extensions are over Node's limit (16 KB)",
  },
  request_headers_too_large: {
    status: 431, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: "the request's headers are over 16 KB in all (too many or too large)",
  },
  context_length_exceeded: {
    status: 400, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: "input (+ `max_tokens`) over the model's `context_window`; `param` is `messages` (`input` on responses), worded as each vendor words it",
  },
  upstream_invalid_request: {
    status: 400, type: 'invalid_request_error', retryable: false, seenIn: 'http',
    description: 'the upstream refused the request itself (e.g. an altered thinking signature); its message follows',
  },
  // 401-403
  invalid_api_key: {
    status: 401, type: 'authentication_error', retryable: null, seenIn: 'http',
    description: 'the API key is missing, unknown or revoked',
  },
  insufficient_balance: {
    status: 402, type: 'insufficient_balance', anthropicType: 'billing_error', retryable: null, seenIn: 'http, cli',
    description: 'the balance is too low for the hold (the message says what was needed and what is available)',
  },
  insufficient_scope: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: "the route or model needs a scope the key lacks (the message names it)",
  },
  // 404
  not_found: {
    status: 404, type: 'invalid_request_error', anthropicType: 'not_found_error', retryable: null, seenIn: 'http, cli',
    description: "no file, generation, job, account or key with that id (another account's ids too, never 403)",
  },
  model_not_found: {
    status: 404, type: 'invalid_request_error', anthropicType: 'not_found_error', retryable: null, seenIn: 'http, cli',
    description: 'the model is not in the catalog or disabled (`param: "model"`; the message suggests close names)',
  },
  unknown_endpoint: {
    status: 404, type: 'invalid_request_error', anthropicType: 'not_found_error', retryable: null, seenIn: 'http',
    description: 'no route has this path',
  },
  content_expired: {
    status: 404, type: 'invalid_request_error', anthropicType: 'not_found_error', retryable: null, seenIn: 'http',
    description: "a result's file has expired and was removed",
  },
  file_content_missing: {
    status: 404, type: 'invalid_request_error', anthropicType: 'not_found_error', retryable: false, seenIn: 'http',
    description: "a file that exists has lost its bytes in the blob store (`storage.blobs`: removed by hand, or the store was switched without `files migrate-store`); the operator must check the storage, the gateway logs the key and the store",
  },
  variant_not_available: {
    status: 404, type: 'invalid_request_error', anthropicType: 'not_found_error', retryable: null, seenIn: 'http',
    description: 'a video variant other than `video` (only the video is stored; `param: "variant"`)',
  },
  // 409
  idempotency_key_reused: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: 'an idempotency key already used with a different request body (`param: "idempotency_key"`)',
  },
  content_not_ready: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: "the content of a job or generation that has not completed (the message gives its status)",
  },
  video_not_finished: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: 'deleting a video that is still queued or in progress',
  },
  quota_exceeded: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'http, cli',
    description: "keeping a file would exceed the account's permanent storage quota",
  },
  // 413, 415
  request_too_large: {
    status: 413, type: 'invalid_request_error', anthropicType: 'request_too_large', retryable: null, seenIn: 'http',
    description: 'a JSON body over `server.json_limit` (counted after decompression)',
  },
  file_too_large: {
    status: 413, type: 'invalid_request_error', anthropicType: 'request_too_large', retryable: null, seenIn: 'http',
    description: 'an upload over its cap while it streams (`param`: the field)',
  },
  field_too_large: {
    status: 413, type: 'invalid_request_error', anthropicType: 'request_too_large', retryable: null, seenIn: 'http',
    description: 'a multipart form field over 1 MB (`param`: the field)',
  },
  too_many_files: {
    status: 413, type: 'invalid_request_error', anthropicType: 'request_too_large', retryable: null, seenIn: 'http',
    description: 'more files in one multipart body than the route takes',
  },
  too_many_fields: {
    status: 413, type: 'invalid_request_error', anthropicType: 'request_too_large', retryable: null, seenIn: 'http',
    description: 'more than 100 multipart form fields',
  },
  unsupported_media_type: {
    status: 415, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: 'an upload route called with a body that is not `multipart/form-data`',
  },
  unsupported_content_encoding: {
    status: 415, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: 'a multipart body with a `Content-Encoding` (uploads are sent uncompressed)',
  },
  // 422
  validation_error: {
    status: 422, type: 'invalid_request_error', retryable: null, seenIn: 'http, cli',
    description: 'the request failed validation, the JSON did not parse, or a cursor is not one the endpoint returned (+ `detail`)',
  },
  invalid_argument: {
    status: 422, type: 'invalid_request_error', retryable: null, seenIn: 'cli',
    description: 'an unknown scope, or an account name that is not allowed',
  },
  invalid_amount: {
    status: 422, type: 'invalid_request_error', retryable: null, seenIn: 'cli',
    description: 'an amount that is not RUB with up to 4 decimals, or is zero or out of range where that is refused',
  },
  account_exists: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'http, cli',
    description: 'creating an account under a name already taken (`accounts create`, POST /admin/v1/accounts)',
  },
  job_already_ended: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'http, cli',
    description: 'cancelling a job that had already ended (completed, failed or cancelled; `jobs cancel`, POST /admin/v1/jobs/:id/cancel, POST /v1/responses/{id}/cancel): nothing changed',
  },
  // Operator controls (issue 18)
  account_disabled: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: "the key's account is disabled (`gateway accounts disable`): refused on every route, nothing held or charged",
  },
  already_refunded: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'http, cli',
    description: 'refunding a charge that was already refunded (`balance refund`, POST /admin/v1/accounts/:id/refund): nothing written',
  },
  adjustment_refused: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'http, cli',
    description: 'an adjustment taking more than the available money (balance minus held; `balance adjust`, POST /admin/v1/accounts/:id/adjust): nothing written',
  },
  // Key controls (issue 18 item 1: keys create/update --expires, --models, --allow-ips, --budget)
  api_key_expired: {
    status: 401, type: 'authentication_error', retryable: null, seenIn: 'http',
    description: 'the key is past its expiry (`keys update --expires`); the message gives the time. Nothing held or charged',
  },
  model_not_allowed: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: "the model is outside the key's allowlist (`--models`); the message names the model and the list. Nothing held or charged",
  },
  ip_not_allowed: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: "the client's address (the TCP peer) is outside the key's allowlist (`--allow-ips`); the message names the address",
  },
  key_budget_exceeded: {
    status: 402, type: 'insufficient_quota', anthropicType: 'billing_error', retryable: false, seenIn: 'http',
    description: "the key's budget for the period (`--budget`, `--budget-period`) does not cover the hold; the message says what is left and when it resets. Nothing held or charged",
  },
  backup_target_exists: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'cli',
    description: '`backup --to` names a file that exists (`--force` replaces it)',
  },
  database_in_use: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'cli',
    description: '`restore` while a `serve` or `worker` process is live on the database (stop it first, or `--force`)',
  },
  serve_already_running: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'cli',
    description: 'a second `serve` on one SQLite file while rate limits are per process (`cache.url: memory`): the line names the running one (pid, address) and says what to do (stop it, or set `cache.url` to Redis for every serve)',
  },
  serve_not_running: {
    status: 404, type: 'invalid_request_error', retryable: null, seenIn: 'cli',
    description: '`reload` found no running `serve --workers N` (N > 1) for this data directory (its `serve.json`): a single-process serve takes a new configuration at a restart',
  },
  reload_refused: {
    status: 422, type: 'invalid_request_error', retryable: null, seenIn: 'cli',
    description: '`reload` (or SIGHUP) refused: the configuration does not load, changes what only a restart changes, or a new worker did not start; the old workers keep serving and the message says why',
  },
  bot_already_running: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'cli',
    description: 'a second `gateway bot` (or `serve --bot`) on a bot token another live process holds: the line names the holder (host, pid); updates must not be taken twice (docs/bot.md)',
  },
  bot_not_configured: {
    status: 422, type: 'invalid_request_error', retryable: null, seenIn: 'cli',
    description: '`gateway bot` or `serve --bot` without a usable `bot` section: none, its token variable unset, its webhook secret unset, or `bot.default_model` not an enabled text model (docs/bot.md)',
  },
  backup_not_supported: {
    status: 422, type: 'invalid_request_error', retryable: null, seenIn: 'cli',
    description: '`backup`/`restore` on PostgreSQL: use `pg_dump`/`pg_restore` (docs/operations.md, Backups)',
  },
  // Web cabinet and admin API (issue 17; docs/cabinet.md)
  session_required: {
    status: 401, type: 'authentication_error', retryable: null, seenIn: 'http',
    description: 'a cabinet route without a live session cookie (none, unknown, revoked or logged out): log in on the login page, or with a new link from the operator (`gateway cabinet link`)',
  },
  session_expired: {
    status: 401, type: 'authentication_error', retryable: null, seenIn: 'http',
    description: 'the session passed its idle limit (`cabinet.session_idle`) or its absolute end (`cabinet.session_max`, `admin_session_max`): log in again',
  },
  csrf_token_invalid: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: 'a cookie-authenticated request other than GET/HEAD without `x-csrf-token` equal to the session\'s `csrf_token`: nothing was done',
  },
  login_link_invalid: {
    status: 401, type: 'authentication_error', retryable: null, seenIn: 'http',
    description: 'a login link that is unknown, expired or already used (one message for all three)',
  },
  admin_token_invalid: {
    status: 401, type: 'authentication_error', retryable: null, seenIn: 'http',
    description: 'an admin API request whose `Authorization: Bearer` is not a live admin token (unknown, revoked, or not a `gwa_` token)',
  },
  forbidden: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: "a session of the wrong kind: an operator session on an account cabinet route, an account session on the admin API, or an operator's link session (no user) changing a user's password or email",
  },
  owner_required: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: "a member's session on a cabinet route for the account's owners (moving money, managing members, changing the account's details): nothing was done",
  },
  // Members of an account (issue 31; docs/cabinet.md, "Members")
  join_link_invalid: {
    status: 401, type: 'authentication_error', retryable: null, seenIn: 'http',
    description: 'an invitation (join) link that is unknown, expired or already used (one message for all three)',
  },
  join_login_required: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: 'an invitation link followed without a session for an address that already has a user: log in, then open the link again (nothing was done; the link stays valid)',
  },
  already_member: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: 'inviting an address whose user is a member of the account already, or following an invitation to an account one is a member of',
  },
  last_owner: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: "demoting or removing the account's only owner: an account keeps at least one (nothing was done)",
  },
  email_send_failed: {
    status: 503, type: 'server_error', anthropicType: 'api_error', retryable: true, seenIn: 'http',
    description: 'the SMTP server of `email` refused the message or could not be reached; nothing was kept (the message names neither the server nor its password)',
  },
  // Email and password accounts (issue 31; docs/cabinet.md, "Sign-up and login")
  signup_closed: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: 'a sign-up while `cabinet.signup` is `closed`: only the operator makes accounts; nothing was kept',
  },
  invite_required: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: 'a sign-up without `invite_code` while `cabinet.signup` is `invite`; nothing was kept',
  },
  invite_invalid: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: 'a sign-up whose invite code is unknown, expired, revoked or already used (one message for all; the same whether or not the email has an account)',
  },
  // Customers' payments (issue 32; docs/payments.md)
  payment_not_refundable: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'http, cli',
    description: 'a refund of a payment that is not succeeded (pending, cancelled, refunded already) or of more than is left of it: nothing was refunded',
  },
  refund_exceeds_available: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'http, cli',
    description: "a refund of more than the account's unspent money: nothing was refunded (refunding anyway takes the balance to zero, never below)",
  },
  payment_provider_unavailable: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'http, cli',
    description: "a refund or `reconcile payments` needing a payment provider this process cannot use: `payments` or the provider's section is not configured, its secret is not in the environment, or (the CLI) its `api_url` is `sim`, a simulator that lives inside each serving process; nothing was refunded",
  },
  notification_refused: {
    status: 400, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: "a payment provider's notification that fails its checks (Stripe's signature, YooKassa's address ranges) or is not the provider's: nothing was read or credited",
  },
  // Redemption codes (issue 32; docs/payments.md, "Redemption codes")
  code_invalid: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: 'a redemption code that is unknown, mistyped, disabled, expired or used up: one message and status for all, so trying codes tells nothing about which exist; nothing was credited',
  },
  code_already_redeemed: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: 'this account has redeemed this code already (a code credits an account once; only its redeemer can be told so); nothing was credited',
  },
  email_unavailable: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: 'sign-up, password reset or email change while `email` is not configured (the login page does not offer them then)',
  },
  email_link_invalid: {
    status: 400, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: 'an email link (verification, password reset, email change) that is unknown, expired or already used (one message for all three)',
  },
  login_failed: {
    status: 401, type: 'authentication_error', retryable: null, seenIn: 'http',
    description: 'a password login with an unknown email or a wrong password (one answer for both, in the same time)',
  },
  email_not_verified: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: 'the right password for an address not confirmed yet: a new confirmation link was sent; no session',
  },
  user_disabled: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: 'the right password of a user the operator disabled; no session',
  },
  user_without_account: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: 'the right password of a user who is a member of no account any more; no session',
  },
  current_password_wrong: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: 'a password or email change whose `current`/`password` is not the user\'s password: nothing changed',
  },
  email_taken: {
    status: 409, type: 'invalid_request_error', retryable: null, seenIn: 'http',
    description: 'an email change link followed after another user took that address: nothing changed',
  },
  metrics_unauthorized: {
    status: 401, type: 'authentication_error', retryable: null, seenIn: 'http',
    description: '`GET /metrics` without the Bearer token of `metrics.token_env`, or with another one',
  },
  metrics_forbidden: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: '`GET /metrics` from anything but a loopback peer, or through a proxy, when neither `metrics.token_env` nor `metrics.listen` is set',
  },
  admin_scope_missing: {
    status: 403, type: 'permission_error', retryable: null, seenIn: 'http',
    description: "an admin API route whose scope the admin token lacks (the message names the scope the route needs and the token's scopes): nothing was done",
  },
  login_rate_limited: {
    status: 429, type: 'rate_limit_error', retryable: true, seenIn: 'http',
    description: 'too many login attempts from this address (`cabinet.login_attempts_per_minute`; sign-ups and reset requests count too) or for this email (`cabinet.login_attempts_per_email_per_minute`); the right password is refused too until `Retry-After` (integer seconds)',
  },
  code_rate_limited: {
    status: 429, type: 'rate_limit_error', retryable: true, seenIn: 'http',
    description: 'too many attempts to redeem a code from this account or from this address (`cabinet.code_attempts_per_minute` each; good or bad, every attempt counts); integer `Retry-After` (1-60)',
  },
  // 429
  rate_limit_exceeded: {
    status: 429, type: 'rate_limit_error', retryable: true, seenIn: 'http',
    description: "the key's requests per minute are used up; integer `Retry-After` (1-60) and `retry-after-ms`",
  },
  tokens_per_minute_exceeded: {
    status: 429, type: 'rate_limit_error', retryable: true, seenIn: 'http',
    description: "the key's tokens per minute (`--tpm`: input + output tokens of its calls, counted when each is charged) are used up; integer `Retry-After` (1-60) and `retry-after-ms`",
  },
  too_many_requests_in_flight: {
    status: 429, type: 'rate_limit_error', retryable: true, seenIn: 'http',
    description: "the key already has `--max-in-flight` requests running; `Retry-After: 1` and `retry-after-ms: 1000`",
  },
  // 5xx
  internal_error: {
    status: 500, type: 'server_error', anthropicType: 'api_error', retryable: false, seenIn: 'http, cli', nullCodeInBody: true,
    description: 'anything unforeseen: logged with the request id, which the message quotes (the body\'s `code` is null)',
  },
  upstream_error: {
    status: 502, type: 'server_error', anthropicType: 'api_error', retryable: 'varies', seenIn: 'http',
    description: "the upstream failed (5xx, overload, network); `x-should-retry` as the upstream's answer allows, its `Retry-After` passed on",
  },
  upstream_auth: {
    status: 502, type: 'server_error', anthropicType: 'api_error', retryable: false, seenIn: 'http',
    description: "the upstream refused the gateway's credentials: the operator must check the provider key",
  },
  upstream_rate_limited: {
    status: 502, type: 'server_error', anthropicType: 'api_error', retryable: true, seenIn: 'http',
    description: "every upstream route of the model asked for a pause; `Retry-After` says until when",
  },
  database_unavailable: {
    status: 503, type: 'server_error', anthropicType: 'api_error', retryable: true, seenIn: 'http',
    description: 'the database is unreachable (refused, reset, starting or stopping, pool exhausted, SQLite locked); `Retry-After: 2`, no restart needed',
  },
  rate_limiter_unavailable: {
    status: 503, type: 'server_error', anthropicType: 'api_error', retryable: true, seenIn: 'http',
    description: "the rate limiter's Redis does not answer (`cache.on_unavailable: closed`); nothing was done",
  },
  storage_unavailable: {
    status: 503, type: 'server_error', anthropicType: 'api_error', retryable: true, seenIn: 'http, cli',
    description: 'the blob store (`storage.blobs`) cannot be reached or refuses the gateway (network, credentials, missing bucket); nothing was charged, `Retry-After: 5`; the log and `/readyz` name the store',
  },
  cabinet_not_built: {
    status: 503, type: 'server_error', anthropicType: 'api_error', retryable: false, seenIn: 'http',
    description: 'the web cabinet (`/cabinet/`) is not in this installation: `dist/web/index.html` is missing; `npm run build` builds it (the API under /v1 works without it)',
  },
  upstream_timeout: {
    status: 504, type: 'server_error', anthropicType: 'timeout_error', retryable: true, seenIn: 'http',
    description: 'the upstream timed out',
  },
  // The CLI's own
  infrastructure_unavailable: {
    status: 503, type: 'server_error', anthropicType: 'api_error', retryable: null, seenIn: 'cli',
    description: 'what the gateway runs on cannot be used: a port taken, a database unreachable, not migrated or without its directory, files kept on the disk of one machine beside instances of other machines (the line says what fixes it)',
  },
  database_newer_than_gateway: {
    status: 503, type: 'server_error', anthropicType: 'api_error', retryable: null, seenIn: 'cli',
    description: 'the database was migrated by a newer version: it has migrations this build does not know (the message names them); run the newer version, or undo them with it (`migrate --rollback`) or restore the backup taken before the upgrade',
  },
  config_invalid: {
    status: 500, type: 'server_error', anthropicType: 'api_error', retryable: null, seenIn: 'cli', exitCode: 78,
    description: 'the configuration file or a `GATEWAY_*` variable does not validate (each problem with its line)',
  },
} as const satisfies Record<string, CatalogEntry>;

/** A code of the catalog: throwing any other does not compile. */
export type ErrorCode = keyof typeof errorCatalog;

export const errorCodes = Object.keys(errorCatalog) as ErrorCode[];

export function catalogEntry(code: ErrorCode): CatalogEntry {
  return errorCatalog[code];
}
