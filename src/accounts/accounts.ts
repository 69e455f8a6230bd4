// Accounts: who owns a balance, keys and (later) jobs and files. Found by id or by name.
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { AccountNotFoundError } from '../billing/errors.js';
import { unitsFromSql } from '../billing/money.js';
import { newId } from '../util/ids.js';

export interface Account {
  readonly id: string;
  readonly name: string;
  readonly balanceUnits: bigint;
  readonly heldUnits: bigint;
  /** Standard Webhooks signing secret ("whsec_…"), shown by `accounts show` only. */
  readonly webhookSecret: string;
  readonly createdAt: number;
}

export class AccountExistsError extends Error {
  constructor(readonly accountName: string) {
    super(`an account named "${accountName}" already exists`);
    this.name = 'AccountExistsError';
  }
}

export class InvalidAccountNameError extends Error {}

interface AccountRow {
  id: string;
  name: string;
  balance_units: string | number;
  held_units: string | number;
  webhook_secret: string;
  created_at: string | number;
}

function fromRow(row: AccountRow): Account {
  return {
    id: row.id,
    name: row.name,
    balanceUnits: unitsFromSql(row.balance_units),
    heldUnits: unitsFromSql(row.held_units),
    webhookSecret: row.webhook_secret,
    createdAt: Number(row.created_at),
  };
}

export class Accounts {
  constructor(
    private readonly db: Knex,
    private readonly now: () => number = Date.now,
  ) {}

  async create(name: string): Promise<Account> {
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
      webhook_secret: `whsec_${randomBytes(32).toString('base64')}`,
      created_at: this.now(),
    };
    try {
      await this.db('accounts').insert(row);
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

  async count(): Promise<number> {
    const row = await this.db('accounts').count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }
}
