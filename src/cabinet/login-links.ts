// One-time login links (`gateway cabinet link`): <public_url>/cabinet/login#token=gwl_…. The
// token sits in the fragment, which browsers never send, so it reaches no log, proxy or
// link-preview fetcher; the page POSTs it to /cabinet/api/login. Stored as its sha256 only.
// A link is redeemed at most once: the UPDATE that marks it used is also the check that it was
// unused and unexpired, so two redemptions racing cannot both win.
import type { Knex } from 'knex';
import { writeAudit } from '../audit/audit-log.js';
import type { Config } from '../config/load.js';
import { newId } from '../util/ids.js';
import { hashSecret, isSecretOf, newSecret } from './secret-tokens.js';

/** Whose cabinet a link or session opens: an account's, or the operator console. */
export type CabinetKind = 'account' | 'admin';

export type CabinetSettings = Config['cabinet'];

/** Unknown, expired or already used: one error, one message, so a guesser learns nothing. */
export class LoginLinkInvalidError extends Error {
  constructor() {
    super('This login link is invalid, expired or already used. Sign in on the login page (/cabinet/login), or ask the operator for a new link.');
    this.name = 'LoginLinkInvalidError';
  }
}

export interface LoginLink {
  readonly id: string;
  readonly kind: CabinetKind;
  readonly accountId: string | null;
  readonly createdBy: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly usedAt: number | null;
}

interface LinkRow {
  id: string;
  token_hash: string;
  kind: string;
  account_id: string | null;
  created_by: string;
  created_at: string | number;
  expires_at: string | number;
  used_at: string | number | null;
}

function fromRow(row: LinkRow): LoginLink {
  return {
    id: row.id,
    kind: row.kind === 'admin' ? 'admin' : 'account',
    accountId: row.account_id,
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    usedAt: row.used_at === null ? null : Number(row.used_at),
  };
}

export class LoginLinks {
  constructor(
    private readonly db: Knex,
    private readonly settings: CabinetSettings,
    private readonly now: () => number,
  ) {}

  /**
   * A new link (audited in the same transaction). The token exists in full only in what this
   * returns: print it, never store it. `accountId` for kind `account`, null for `admin`.
   */
  async create(options: { kind: CabinetKind; accountId: string | null; actor: string }): Promise<{ link: LoginLink; token: string; path: string; url: string }> {
    if ((options.kind === 'account') !== (options.accountId !== null)) throw new Error('an account link names its account; an admin link names none');
    const token = newSecret('gwl_');
    const createdAt = this.now();
    const row: LinkRow = {
      id: newId('lnk'),
      token_hash: hashSecret(token),
      kind: options.kind,
      account_id: options.accountId,
      created_by: options.actor,
      created_at: createdAt,
      expires_at: createdAt + this.settings.linkTtlMs,
      used_at: null,
    };
    await this.db.transaction(async (trx) => {
      await trx('login_links').insert(row);
      await writeAudit(
        trx,
        { actor: options.actor, action: 'login_link.create', target: row.id, accountId: options.accountId, details: { kind: options.kind, expires_at: new Date(Number(row.expires_at)).toISOString() } },
        createdAt,
      );
    });
    const path = `/cabinet/login#token=${token}`;
    return { link: fromRow(row), token, path, url: `${this.settings.publicUrl}${path}` };
  }

  /** Marks the link used, in the caller's transaction, and returns it; LoginLinkInvalidError when it cannot be. */
  async redeem(trx: Knex.Transaction, token: unknown): Promise<LoginLink> {
    if (!isSecretOf('gwl_', token)) throw new LoginLinkInvalidError();
    const tokenHash = hashSecret(token);
    const now = this.now();
    const updated = await trx('login_links').where({ token_hash: tokenHash }).whereNull('used_at').where('expires_at', '>', now).update({ used_at: now });
    if (updated !== 1) throw new LoginLinkInvalidError();
    const row: LinkRow = await trx('login_links').where({ token_hash: tokenHash }).first();
    return fromRow(row);
  }
}
