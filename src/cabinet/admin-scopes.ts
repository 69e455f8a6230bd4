// The five scopes an admin token can carry (issue 30 item 2), and what each one opens. Every
// admin route declares the one it needs in the route table (src/http/route-table.ts), where a
// route of auth `admin` without one does not compile; docs/admin-api.md lists the mapping.
// Operator console sessions (a login link) hold every scope: the console is the operator.
//
// - read: every GET that reveals no secret (lists, the request log, jobs, status, usage, audit)
// - accounts: create, disable and enable accounts
// - keys: create and revoke API keys (a new key's secret is in the answer that made it)
// - money: top up and adjust balances, refund charges, and cancel jobs (a cancel releases the
//   hold and charges nothing, even when the upstream still finishes: a decision about money)
// - admin: reading secrets (an account's webhook signing secret), minting an account's login
//   link (a credential: whoever opens it is logged in), and whatever of token, session or
//   system management the admin API comes to serve (today the CLI's alone)
import { parseScopeList } from '../auth/scope-list.js';
import { DomainError } from '../errors/domain-error.js';

export const allAdminScopes = ['read', 'accounts', 'keys', 'money', 'admin'] as const;
export type AdminScope = (typeof allAdminScopes)[number];

export class InvalidAdminScopeError extends DomainError {
  override readonly catalogCode = 'invalid_argument';
  override readonly seenIn = 'cli';
}

/** "money, read" → ['read', 'money'] in canonical order; unknown names and an empty list are refused. */
export function parseAdminScopes(text: string): AdminScope[] {
  return parseScopeList(text, allAdminScopes, { noun: 'admin scope', refuse: (message) => new InvalidAdminScopeError(message) });
}

/** The stored form (admin_tokens.scopes: a comma list) read back; a name this build does not know is dropped, never widened. */
export function storedAdminScopes(stored: string): AdminScope[] {
  const names = stored.split(',');
  return allAdminScopes.filter((scope) => names.includes(scope));
}
