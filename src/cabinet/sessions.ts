// Cabinet sessions: what a redeemed login link becomes. The browser holds the session's token
// (gws_…) in the HttpOnly cookie (cookie.ts); the database holds its sha256. A session ends at
// its absolute end (created + cabinet.session_max, or admin_session_max for the operator),
// after cabinet.session_idle without a request, or when revoked (logout, `gateway cabinet
// sessions revoke`). last_seen_at is written at most once a minute per session, not per
// request, so the idle limit is kept to within that minute.
import type { Knex } from 'knex';
import { writeAudit } from '../audit/audit-log.js';
import { DomainError } from '../errors/domain-error.js';
import type { MemberRole } from '../users/account-members.js';
import { newId } from '../util/ids.js';
import type { CabinetKind, CabinetSettings, LoginLinks } from './login-links.js';
import { hashSecret, isSecretOf, newCsrfToken, newSecret, sameHash } from './secret-tokens.js';

/** How an account session was opened. */
export type SessionMethod = 'link' | 'password' | 'oidc' | 'telegram';

/** last_seen_at is moved forward only when it is at least this old. */
export const lastSeenResolutionMs = 60_000;

export interface CabinetSession {
  readonly id: string;
  readonly kind: CabinetKind;
  readonly accountId: string | null;
  /** The account's name (null for an admin session). */
  readonly accountName: string | null;
  /** Set while the session's account is disabled. */
  readonly accountDisabledAt: number | null;
  /** The user it belongs to; null for a session opened by an operator's login link (it acts as the account's owner). */
  readonly userId: string | null;
  /**
   * What the session may do for its account: `owner`, or `member` (no money, members or account
   * details). null: the user is no longer a member of the account (the session is refused).
   */
  readonly role: MemberRole | null;
  readonly method: SessionMethod;
  readonly csrfToken: string;
  /** The login link it was opened with (method `link`), else null. */
  readonly loginLinkId: string | null;
  readonly createdAt: number;
  readonly lastSeenAt: number;
  /** The absolute end. */
  readonly expiresAt: number;
  readonly revokedAt: number | null;
  readonly userAgent: string | null;
  readonly address: string | null;
}

/** What a presented cookie is: a live session, or why there is none. */
export type SessionLookup = { readonly session: CabinetSession } | { readonly refusal: 'session_required' | 'session_expired' };

interface SessionRow {
  id: string;
  token_hash: string;
  kind: string;
  account_id: string | null;
  csrf_token: string;
  login_link_id: string | null;
  user_id: string | null;
  method: string;
  created_at: string | number;
  last_seen_at: string | number;
  expires_at: string | number;
  revoked_at: string | number | null;
  user_agent: string | null;
  address: string | null;
  account_name?: string | null;
  account_disabled_at?: string | number | null;
  member_role?: string | null;
}

const optionalNumber = (value: string | number | null | undefined) => (value === null || value === undefined ? null : Number(value));

function fromRow(row: SessionRow): CabinetSession {
  return {
    id: row.id,
    kind: row.kind === 'admin' ? 'admin' : 'account',
    accountId: row.account_id,
    accountName: row.account_name ?? null,
    accountDisabledAt: optionalNumber(row.account_disabled_at),
    userId: row.user_id,
    role: row.user_id === null ? 'owner' : row.member_role === 'owner' ? 'owner' : row.member_role === 'member' ? 'member' : null,
    method: row.method === 'password' || row.method === 'oidc' || row.method === 'telegram' ? row.method : 'link',
    csrfToken: row.csrf_token,
    loginLinkId: row.login_link_id,
    createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at),
    expiresAt: Number(row.expires_at),
    revokedAt: optionalNumber(row.revoked_at),
    userAgent: row.user_agent,
    address: row.address,
  };
}

export class SessionNotFoundError extends DomainError {
  override readonly catalogCode = 'not_found';
  override readonly seenIn = 'cli';

  constructor(readonly sessionId: string) {
    super(`no cabinet session "${sessionId}"`);
    this.name = 'SessionNotFoundError';
  }
}

export class CabinetSessions {
  constructor(
    private readonly db: Knex,
    private readonly links: LoginLinks,
    private readonly settings: CabinetSettings,
    private readonly now: () => number,
  ) {}

  private withAccount(db: Knex | Knex.Transaction) {
    return db('cabinet_sessions as s')
      .leftJoin('accounts as a', 'a.id', 's.account_id')
      .leftJoin('account_members as m', (join) => join.on('m.account_id', 's.account_id').andOn('m.user_id', 's.user_id'))
      .select('s.*', 'a.name as account_name', 'a.disabled_at as account_disabled_at', 'm.role as member_role');
  }

  /**
   * Redeems a login link and opens its session, in one transaction: a link is spent only by a
   * session that exists. `check` may refuse the session before anything is kept (a disabled
   * account): it throws and the link stays unused. Returns the session and the cookie's token
   * (the only time it exists in full).
   */
  async login(
    token: unknown,
    client: { userAgent: string | null; address: string | null },
    check: (session: CabinetSession) => void = () => undefined,
  ): Promise<{ session: CabinetSession; cookieToken: string }> {
    return this.db.transaction(async (trx) => {
      const link = await this.links.redeem(trx, token);
      const opened = await this.insert(trx, { kind: link.kind, accountId: link.accountId, userId: null, method: 'link', loginLinkId: link.id }, client);
      check(opened.session);
      return opened;
    });
  }

  /**
   * Opens an account session for a user who proved who they are (password, OIDC, Telegram),
   * in the caller's transaction when given. A login always makes a new session (a new id and
   * cookie): a session id is never carried over a login.
   */
  async openForUser(
    opening: { accountId: string; userId: string; method: Exclude<SessionMethod, 'link'> },
    client: { userAgent: string | null; address: string | null },
    trx?: Knex.Transaction,
  ): Promise<{ session: CabinetSession; cookieToken: string }> {
    const run = (db: Knex.Transaction) => this.insert(db, { kind: 'account', accountId: opening.accountId, userId: opening.userId, method: opening.method, loginLinkId: null }, client);
    return trx ? run(trx) : this.db.transaction(run);
  }

  private async insert(
    trx: Knex.Transaction,
    opening: { kind: CabinetKind; accountId: string | null; userId: string | null; method: SessionMethod; loginLinkId: string | null },
    client: { userAgent: string | null; address: string | null },
  ): Promise<{ session: CabinetSession; cookieToken: string }> {
    const cookieToken = newSecret('gws_');
    const now = this.now();
    const row: SessionRow = {
      id: newId('ses'),
      token_hash: hashSecret(cookieToken),
      kind: opening.kind,
      account_id: opening.accountId,
      user_id: opening.userId,
      method: opening.method,
      csrf_token: newCsrfToken(),
      login_link_id: opening.loginLinkId,
      created_at: now,
      last_seen_at: now,
      expires_at: now + (opening.kind === 'admin' ? this.settings.adminSessionMaxMs : this.settings.sessionMaxMs),
      revoked_at: null,
      user_agent: client.userAgent === null ? null : client.userAgent.slice(0, 300),
      address: client.address === null ? null : client.address.slice(0, 64),
    };
    await trx('cabinet_sessions').insert(row);
    const session = fromRow((await this.withAccount(trx).where('s.id', row.id).first()) as SessionRow);
    return { session, cookieToken };
  }

  /**
   * Ends every live session of a user but `exceptId` (a password change keeps the session that
   * made it), in the caller's transaction when given. Returns how many were ended.
   */
  async endForUser(userId: string, options: { exceptId?: string; trx?: Knex.Transaction } = {}): Promise<number> {
    const query = (options.trx ?? this.db)('cabinet_sessions').where({ user_id: userId }).whereNull('revoked_at');
    if (options.exceptId !== undefined) query.whereNot({ id: options.exceptId });
    return query.update({ revoked_at: this.now() });
  }

  /**
   * The live session a cookie's token names, or why there is none: none, unknown or revoked is
   * `session_required`; past its idle limit or absolute end `session_expired`. Moves
   * last_seen_at forward when it is a minute old or more.
   */
  async authenticate(cookieToken: string | undefined): Promise<SessionLookup> {
    if (!isSecretOf('gws_', cookieToken)) return { refusal: 'session_required' };
    const tokenHash = hashSecret(cookieToken);
    const row: SessionRow | undefined = await this.withAccount(this.db).where('s.token_hash', tokenHash).first();
    if (!row || !sameHash(row.token_hash, tokenHash) || row.revoked_at !== null) return { refusal: 'session_required' };
    const session = fromRow(row);
    const now = this.now();
    if (now >= session.expiresAt || now >= session.lastSeenAt + this.settings.sessionIdleMs) return { refusal: 'session_expired' };
    if (now - session.lastSeenAt >= lastSeenResolutionMs) {
      // Conditional on the value read: of several requests at once, one writes.
      await this.db('cabinet_sessions').where({ id: session.id, last_seen_at: row.last_seen_at }).update({ last_seen_at: now });
      return { session: { ...session, lastSeenAt: now } };
    }
    return { session };
  }

  /**
   * Ends the session a browser's cookie names, if it is one (a login ends the browser's previous
   * session: the id is renewed, never carried over). Returns whether one was ended.
   */
  async endByCookie(cookieToken: string | undefined): Promise<boolean> {
    if (!isSecretOf('gws_', cookieToken)) return false;
    return (await this.db('cabinet_sessions').where({ token_hash: hashSecret(cookieToken) }).whereNull('revoked_at').update({ revoked_at: this.now() })) > 0;
  }

  /** Ends the session (logout): its cookie is refused from the next request. */
  async end(id: string): Promise<void> {
    await this.db('cabinet_sessions').where({ id }).whereNull('revoked_at').update({ revoked_at: this.now() });
  }

  /** Revokes one session (the operator's `cabinet sessions revoke`), audited; revoking twice keeps the first time. */
  async revoke(id: string, actor: string): Promise<CabinetSession> {
    return this.db.transaction(async (trx) => {
      const row: SessionRow | undefined = await this.withAccount(trx).where('s.id', id).first();
      if (!row) throw new SessionNotFoundError(id);
      if (row.revoked_at === null) {
        const now = this.now();
        await trx('cabinet_sessions').where({ id }).update({ revoked_at: now });
        await writeAudit(trx, { actor, action: 'session.revoke', target: id, accountId: row.account_id, details: { kind: row.kind } }, now);
        row.revoked_at = now;
      }
      return fromRow(row);
    });
  }

  /** Revokes every live session of an account (audited, one row per session); returns those revoked. */
  async revokeAccount(accountId: string, actor: string): Promise<CabinetSession[]> {
    return this.db.transaction(async (trx) => {
      const now = this.now();
      const rows: SessionRow[] = await this.withAccount(trx).where('s.account_id', accountId).whereNull('s.revoked_at').where('s.expires_at', '>', now).orderBy('s.id');
      for (const row of rows) {
        await trx('cabinet_sessions').where({ id: row.id }).update({ revoked_at: now });
        await writeAudit(trx, { actor, action: 'session.revoke', target: row.id, accountId, details: { kind: row.kind } }, now);
        row.revoked_at = now;
      }
      return rows.map(fromRow);
    });
  }

  /** Sessions, oldest first: only live ones unless `all` (revoked, idle and past their end too). */
  async list(filter: { accountId?: string; all?: boolean } = {}): Promise<CabinetSession[]> {
    const now = this.now();
    const query = this.withAccount(this.db).orderBy('s.created_at').orderBy('s.id');
    if (filter.accountId !== undefined) query.where('s.account_id', filter.accountId);
    if (!filter.all) query.whereNull('s.revoked_at').where('s.expires_at', '>', now).where('s.last_seen_at', '>', now - this.settings.sessionIdleMs);
    return ((await query) as SessionRow[]).map(fromRow);
  }

  /** Whether the session is live at `now` (the same rule authenticate applies). */
  isLive(session: CabinetSession): boolean {
    const now = this.now();
    return session.revokedAt === null && now < session.expiresAt && now < session.lastSeenAt + this.settings.sessionIdleMs;
  }
}
