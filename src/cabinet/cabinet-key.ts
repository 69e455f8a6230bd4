// The account's cabinet key: the account cabinet acts through a real API key (purpose
// 'cabinet', all scopes, name "cabinet"), so the /v1 handlers it reuses run unchanged and its
// charges go through the one pipeline and ledger; history names the key "cabinet". Made on the
// first cabinet request that needs it, its secret discarded (nobody can present it: the cabinet
// finds it by account). `keys ls` shows it; revoking it is allowed — the next cabinet request
// makes a new one. At most one live cabinet key per account (a partial unique index): two first
// requests at once make one, the loser reads the winner's.
import type { Knex } from 'knex';
import { type ApiKey, type ApiKeys, keyFromRow, type KeyRow } from '../auth/api-keys.js';

export class CabinetKeys {
  constructor(
    private readonly db: Knex,
    private readonly apiKeys: ApiKeys,
  ) {}

  private async live(accountId: string): Promise<ApiKey | undefined> {
    const row: KeyRow | undefined = await this.db('api_keys').where({ account_id: accountId, purpose: 'cabinet' }).whereNull('revoked_at').first();
    return row ? keyFromRow(row) : undefined;
  }

  /** The account's live cabinet key, made now when it has none. */
  async forAccount(accountId: string): Promise<ApiKey> {
    const known = await this.live(accountId);
    if (known) return known;
    try {
      return (await this.apiKeys.create({ accountId, name: 'cabinet', purpose: 'cabinet' })).apiKey;
    } catch (error) {
      // Another request made it first (the unique index refused this one).
      const made = /unique|duplicate/i.test((error as Error).message) ? await this.live(accountId) : undefined;
      if (made) return made;
      throw error;
    }
  }
}
