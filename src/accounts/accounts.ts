// Accounts: who owns a balance, keys and (later) jobs and files. Found by id or by name.
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { AccountNotFoundError } from '../billing/errors.js';
import { unitsFromSql } from '../util/money.js';
import { DomainError } from '../errors/domain-error.js';
import { GatewayError } from '../errors/gateway-error.js';
import { newId } from '../util/ids.js';
import { writeAudit } from '../audit/audit-log.js';

export interface Account {
  readonly id: string;
  readonly name: string;
  readonly balanceUnits: bigint;
  readonly heldUnits: bigint;
  /** Standard Webhooks signing secret ("whsec_…"), shown by `accounts show` only. */
  readonly webhookSecret: string;
  readonly createdAt: number;
  /** Set while the account is disabled: every key of it is refused (403 account_disabled). */
  readonly disabledAt: number | null;
  readonly disabledReason: string | null;
}

/** A Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64. */
const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export class AccountExistsError extends DomainError {
  override readonly catalogCode = 'account_exists';

  constructor(readonly accountName: string) {
    super(`an account named "${accountName}" already exists`);
    this.name = 'AccountExistsError';
  }

  override toGatewayError(): GatewayError {
    return new GatewayError(this.catalogCode, this.message, { param: 'name' });
  }
}

export class InvalidAccountNameError extends DomainError {
  override readonly catalogCode = 'invalid_argument';
  override readonly seenIn = 'cli';
}

interface AccountRow {
  id: string;
  name: string;
  balance_units: string | number;
  held_units: string | number;
  webhook_secret: string;
  created_at: string | number;
  disabled_at: string | number | null;
  disabled_reason: string | null;
}

function fromRow(row: AccountRow): Account {
  return {
    id: row.id,
    name: row.name,
    balanceUnits: unitsFromSql(row.balance_units),
    heldUnits: unitsFromSql(row.held_units),
    webhookSecret: row.webhook_secret,
    createdAt: Number(row.created_at),
    disabledAt: row.disabled_at === null || row.disabled_at === undefined ? null : Number(row.disabled_at),
    disabledReason: row.disabled_reason ?? null,
  };
}

export class Accounts {
  constructor(
    private readonly db: Knex,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Creates an account. `actor`: who asks (the CLI, the admin API): its `account.create` audit
   * row is written in the same transaction. Without one (tests, fixtures) no row is written.
   * `within`: the caller's transaction (on PostgreSQL a name taken makes that transaction
   * unusable: the caller picks a free name first, see sign-up.ts).
   */
  async create(name: string, options: { actor?: string; within?: Knex.Transaction } = {}): Promise<Account> {
    if (!/^[\p{L}\p{N}][\p{L}\p{N} ._@-]{0,199}$/u.test(name) || name.startsWith('acc_')) {
      throw new InvalidAccountNameError(
        `"${name}" is not a usable account name: 1-200 letters, digits, spaces or ._@- , not starting with "acc_"`,
      );
    }
    const row: AccountRow = {
      id: newId('acc'),
      name,
      balance_units: 0,
      held_units: 0,
      webhook_secret: newWebhookSecret(),
      created_at: this.now(),
      disabled_at: null,
      disabled_reason: null,
    };
    const write = async (trx: Knex.Transaction) => {
      await trx('accounts').insert(row);
      if (options.actor !== undefined) {
        await writeAudit(trx, { actor: options.actor, action: 'account.create', target: row.id, accountId: row.id, details: { name } }, row.created_at as number);
      }
    };
    try {
      // `within`: a sign-up making the account with its user (src/users/sign-up.ts).
      if (options.within) await write(options.within);
      else await this.db.transaction(write);
    } catch (error) {
      if (/unique|duplicate/i.test((error as Error).message)) throw new AccountExistsError(name);
      throw error;
    }
    return fromRow(row);
  }

  async list(): Promise<Account[]> {
    const rows: AccountRow[] = await this.db('accounts').select('*').orderBy('created_at').orderBy('id');
    return rows.map(fromRow);
  }

  /** By id ("acc_…") or by name; AccountNotFoundError otherwise. */
  async find(idOrName: string): Promise<Account> {
    const row: AccountRow | undefined = await this.db('accounts')
      .select('*')
      .where(idOrName.startsWith('acc_') ? { id: idOrName } : { name: idOrName })
      .first();
    if (!row) throw new AccountNotFoundError(idOrName);
    return fromRow(row);
  }

  /**
   * Disables (every key refused from its next request, in every process: the key lookup and the
   * hold of a cached key read the flag) or enables an account, with its audit row in the same
   * transaction. Running jobs and requests already past their hold finish and settle as usual.
   * Disabling a disabled account (or enabling an enabled one) changes nothing and writes no row.
   */
  async setDisabled(idOrName: string, disabled: boolean, options: { reason: string | null; actor: string }): Promise<{ account: Account; changed: boolean }> {
    const account = await this.find(idOrName);
    const changed = await this.db.transaction(async (trx) => {
      const at = this.now();
      const update = trx('accounts').where({ id: account.id });
      if (disabled) update.whereNull('disabled_at').update({ disabled_at: at, disabled_reason: options.reason });
      else update.whereNotNull('disabled_at').update({ disabled_at: null, disabled_reason: null });
      const count = Number(await update);
      if (count === 0) return false;
      await writeAudit(
        trx,
        { actor: options.actor, action: disabled ? 'account.disable' : 'account.enable', target: account.id, accountId: account.id, details: { name: account.name, reason: options.reason } },
        at,
      );
      return true;
    });
    return { account: await this.find(account.id), changed };
  }

  /**
   * Replaces the account's webhook signing secret (the old one stops signing at once: the next
   * delivery reads the new one), with its audit row in the same transaction. Returns the new
   * secret; the audit row records that it changed, never the secret.
   */
  async rotateWebhookSecret(accountId: string, audit: { actor: string }): Promise<string> {
    const secret = newWebhookSecret();
    await this.db.transaction(async (trx) => {
      const updated = Number(await trx('accounts').where({ id: accountId }).update({ webhook_secret: secret }));
      if (updated === 0) throw new AccountNotFoundError(accountId);
      await writeAudit(trx, { actor: audit.actor, action: 'webhook_secret.rotate', target: accountId, accountId, details: {} }, this.now());
    });
    return secret;
  }

  async count(): Promise<number> {
    const row = await this.db('accounts').count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }
}
