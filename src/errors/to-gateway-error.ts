// THE one place where domain errors become catalog errors, for the HTTP shell and the CLI alike
// (before: request-context.ts, per-route catches in files.ts and history.ts, and the CLI's own
// list). Domain errors stay plain classes in their modules: they carry facts (the amounts, the
// window, the id), and the wording for a client is decided here, once. A surface names who asks:
// the body parser's status-bearing refusals are HTTP's only; the CLI's argument and
// infrastructure errors are the CLI's only (over HTTP they would be a bug, a logged 500).
import { AccountExistsError, InvalidAccountNameError } from '../accounts/accounts.js';
import { KeyNotFoundError } from '../auth/api-keys.js';
import { InvalidAdminScopeError } from '../cabinet/admin-scopes.js';
import { AdminTokenNotFoundError, InvalidAdminTokenNameError } from '../cabinet/admin-tokens.js';
import { SessionNotFoundError } from '../cabinet/sessions.js';
import { InviteNotFoundError } from '../users/invites.js';
import { KeyBudgetExceededError, KeyPolicyFormatError } from '../auth/key-policy.js';
import { InvalidScopeError } from '../auth/scopes.js';
import { AccountDisabledError, AccountNotFoundError, InsufficientBalanceError, KeyNotLiveError } from '../billing/errors.js';
import { AdjustmentRefusedError, AlreadyRefundedError, AmbiguousChargeError, ChargeNotFoundError } from '../billing/corrections.js';
import { formatRub, MoneyFormatError } from '../billing/money.js';
import { ModelNotFoundError } from '../catalog/catalog.js';
import { ProviderRefusedError } from '../payments/provider.js';
import { ConfigError } from '../config/load.js';
import { BackupNotSupportedError, BackupSourceMissingError, BackupTargetExistsError, BackupTargetFolderMissingError, DatabaseInUseError } from '../db/backup.js';
import { DatabaseNewerError, isDatabaseUnavailable } from '../db/errors.js';
import { IdempotencyConflictError } from '../jobs/job-store.js';
import { JobAlreadyEndedError, JobNotFoundError } from '../jobs/present.js';
import { ContextWindowExceededError } from '../pipeline/context-window.js';
import { BlobMissingError, BlobStoreUnavailableError } from '../storage/blob-store.js';
import { FileNotFoundError, QuotaExceededError } from '../storage/files.js';
import { AlreadyMemberError, JoinNeedsLoginError, LastOwnerError, MemberNotFoundError } from '../users/memberships.js';
import { UserNotFoundError } from '../users/users.js';
import { InfrastructureError } from '../util/infrastructure-error.js';
import { InvalidCursorError } from '../util/invalid-cursor-error.js';
import { RequestValidationError } from '../validation/zod-details.js';
import { GatewayError } from './gateway-error.js';
import { databaseUnavailable, fileContentMissing, invalidKey, storageUnavailable, validationFailed } from './refusals.js';

export type Surface = 'http' | 'cli';

/** The catalog error for a known failure; undefined for anything else (a logged 500, a stack on the CLI). */
export function toGatewayError(error: unknown, surface: Surface): GatewayError | undefined {
  if (error instanceof GatewayError) return error;
  if (error instanceof RequestValidationError) return validationFailed(error.details);
  if (error instanceof InvalidCursorError) {
    return validationFailed([{ loc: ['query', error.parameter], msg: `Value error, ${error.message}`, type: 'value_error', input: error.cursor }]);
  }
  if (error instanceof InsufficientBalanceError) {
    return new GatewayError(
      'insufficient_balance',
      `Insufficient balance: this request needs ${formatRub(error.neededUnits)} RUB and ${formatRub(error.availableUnits)} RUB is available. ${error.hint ? `${error.hint} ` : ''}Top up the account.`,
    );
  }
  if (error instanceof KeyNotLiveError) return invalidKey();
  if (error instanceof KeyBudgetExceededError) return error.toGatewayError();
  if (error instanceof AccountDisabledError) return new GatewayError('account_disabled', 'This API key belongs to a disabled account. Contact the gateway operator.');
  if (error instanceof ContextWindowExceededError) return contextLengthExceeded(error);
  if (error instanceof ModelNotFoundError) return new GatewayError('model_not_found', error.message, { param: 'model' });
  if (error instanceof IdempotencyConflictError) return new GatewayError('idempotency_key_reused', error.message, { param: 'idempotency_key' });
  if (error instanceof QuotaExceededError) return new GatewayError('quota_exceeded', error.message);
  if (error instanceof FileNotFoundError) return new GatewayError('not_found', `No file found with id '${error.fileId}'.`);
  // Before the database: a store's refused connection would read as the database's.
  if (error instanceof BlobStoreUnavailableError) return storageUnavailable();
  if (error instanceof BlobMissingError) return fileContentMissing(error.fileId);
  if (isDatabaseUnavailable(error)) return databaseUnavailable();
  // A payment provider's definite refusal that reached a route (a notification naming a payment the provider does not know).
  if (error instanceof ProviderRefusedError) {
    return error.status === 404 ? new GatewayError('not_found', `${error.provider} has no such payment`) : new GatewayError('upstream_error', `${error.provider} refused: ${error.message}`);
  }
  // Operator changes: the CLI's and the admin API's (/admin/v1) alike. A refusal names the
  // field to correct, so the console shows it by that field.
  if (error instanceof AccountExistsError) return new GatewayError('account_exists', error.message, { param: 'name' });
  if (error instanceof JobAlreadyEndedError) return new GatewayError('job_already_ended', error.message);
  if (error instanceof AdjustmentRefusedError) return new GatewayError('adjustment_refused', error.message, { param: 'amount_rub' });
  if (error instanceof AlreadyRefundedError) return new GatewayError('already_refunded', error.message);
  if (error instanceof ChargeNotFoundError) return new GatewayError('not_found', error.message);
  if (error instanceof AccountNotFoundError || error instanceof KeyNotFoundError || error instanceof JobNotFoundError || error instanceof InviteNotFoundError) return new GatewayError('not_found', error.message);
  // Members and users (src/users/memberships.ts): the cabinet's members page and the admin API.
  if (error instanceof UserNotFoundError || error instanceof MemberNotFoundError) return new GatewayError('not_found', error.message);
  if (error instanceof LastOwnerError) return new GatewayError('last_owner', `An account keeps at least one owner: make another member an owner first. Nothing was changed.`);
  if (error instanceof AlreadyMemberError) return new GatewayError('already_member', `${error.message[0]!.toUpperCase()}${error.message.slice(1)}.`);
  if (error instanceof JoinNeedsLoginError) return new GatewayError('join_login_required', 'This address already has a user: log in first, then open the invitation link again. The link is still valid.');
  return surface === 'http' ? fromHttpParser(error) : fromCommand(error);
}

/** Body parser and router refusals (malformed JSON, body too large, wrong charset, wrong method) carry their status. */
function fromHttpParser(error: unknown): GatewayError | undefined {
  const status = (error as { status?: number } | null)?.status;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  if (status === 413) return new GatewayError('request_too_large', 'Request body is too large.');
  const message = status === 405 ? (error as Error).message : `Malformed request: ${(error as Error).message}`;
  return new GatewayError('invalid_request', message, { status });
}

/** What only commands meet: their arguments, the configuration and what the process runs on. */
function fromCommand(error: unknown): GatewayError | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error instanceof ConfigError) return new GatewayError('config_invalid', error.message);
  if (error instanceof DatabaseNewerError) return new GatewayError('database_newer_than_gateway', error.message);
  if (error instanceof InfrastructureError) return new GatewayError('infrastructure_unavailable', error.message);
  if (error instanceof AmbiguousChargeError) return new GatewayError('invalid_argument', error.message);
  if (error instanceof BackupTargetExistsError) return new GatewayError('backup_target_exists', error.message);
  if (error instanceof BackupTargetFolderMissingError) return new GatewayError('invalid_argument', error.message);
  if (error instanceof BackupNotSupportedError) return new GatewayError('backup_not_supported', error.message);
  if (error instanceof DatabaseInUseError) return new GatewayError('database_in_use', error.message);
  if (error instanceof BackupSourceMissingError) return new GatewayError('not_found', error.message);
  if (error instanceof KeyPolicyFormatError) return new GatewayError('invalid_argument', error.message);
  if (error instanceof InvalidAccountNameError || error instanceof InvalidScopeError) return new GatewayError('invalid_argument', error.message);
  if (error instanceof MoneyFormatError || error instanceof RangeError) return new GatewayError('invalid_amount', error.message);
  if (error instanceof SessionNotFoundError || error instanceof AdminTokenNotFoundError) return new GatewayError('not_found', error.message);
  if (error instanceof InvalidAdminTokenNameError || error instanceof InvalidAdminScopeError) return new GatewayError('invalid_argument', error.message);
  return undefined;
}

/** Worded as OpenAI and Anthropic word it: clients (and agents that compact history) parse these messages. */
function contextLengthExceeded(error: ContextWindowExceededError): GatewayError {
  const { contextWindow, inputTokens, requestedOutputTokens, inputField } = error;
  if (requestedOutputTokens === undefined) {
    return new GatewayError(
      'context_length_exceeded',
      `This model's maximum context length is ${contextWindow} tokens. However, your ${inputField} resulted in ${inputTokens} tokens. Please reduce the length of the ${inputField}.`,
      { param: inputField, anthropicMessage: `prompt is too long: ${inputTokens} tokens > ${contextWindow} maximum` },
    );
  }
  return new GatewayError(
    'context_length_exceeded',
    `This model's maximum context length is ${contextWindow} tokens. However, you requested ${inputTokens + requestedOutputTokens} tokens (${inputTokens} in the ${inputField}, ${requestedOutputTokens} in the completion). Please reduce the length of the ${inputField} or completion.`,
    {
      param: inputField,
      anthropicMessage: `input length and \`max_tokens\` exceed context limit: ${inputTokens} + ${requestedOutputTokens} > ${contextWindow}, decrease input length or \`max_tokens\` and try again`,
    },
  );
}
