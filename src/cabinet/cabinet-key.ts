// The account's own keys: the account cabinet (purpose 'cabinet', name "cabinet") and the
// Telegram bot (purpose 'bot', name "bot", src/bot/) act through real API keys with all scopes,
// so the /v1 handlers and pipeline functions they reuse run unchanged and their charges go
// through the one pipeline and ledger; history names the key "cabinet" or "bot". Made on the
// first request that needs it, its secret discarded (nobody can present it: the cabinet and the
// bot find it by account). `keys ls` shows it; revoking it is allowed — the next request makes a
// new one. At most one live key of each purpose per account (a partial unique index): two first
// requests at once make one, the loser reads the winner's.
import type { Knex } from 'knex';
import { type ApiKey, type ApiKeys, keyFromRow, type KeyRow } from '../auth/api-keys.js';

export class AccountKeys {
  constructor(
    private readonly db: Knex,
    private readonly apiKeys: ApiKeys,
    private readonly purpose: 'cabinet' | 'bot',
  ) {}

  private async live(accountId: string): Promise<ApiKey | undefined> {
    const row: KeyRow | undefined = await this.db('api_keys').where({ account_id: accountId, purpose: this.purpose }).whereNull('revoked_at').first();
    return row ? keyFromRow(row) : undefined;
  }

  /** The account's live key of this purpose, made now when it has none. */
  async forAccount(accountId: string): Promise<ApiKey> {
    const known = await this.live(accountId);
    if (known) return known;
    try {
      return (await this.apiKeys.create({ accountId, name: this.purpose, purpose: this.purpose })).apiKey;
    } catch (error) {
      // Another request made it first (the unique index refused this one).
      const made = /unique|duplicate/i.test((error as Error).message) ? await this.live(accountId) : undefined;
      if (made) return made;
      throw error;
    }
  }
}

/** The cabinet's key of an account. */
export class CabinetKeys extends AccountKeys {
  constructor(db: Knex, apiKeys: ApiKeys) {
    super(db, apiKeys, 'cabinet');
  }
}
