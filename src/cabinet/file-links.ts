// Download links: a URL that opens one stored file of one account without a session or a key,
// until it expires (the bot sends one for a result too large for Telegram, docs/bot.md). The
// token is a gwf_ secret (src/cabinet/secret-tokens.ts); file_links keeps only its sha256, so
// a copy of the database opens nothing. An unknown, altered or expired token resolves to
// nothing, and the route answers them alike (src/http/routes/file-links.ts).
import type { Knex } from 'knex';
import { hashSecret, isSecretOf, newSecret } from './secret-tokens.js';
import { newId } from '../util/ids.js';

/** A link's address: the route table's GET /download/:token under the gateway's public address. */
export function fileLinkUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/download/${token}`;
}

export interface FileLinkTarget {
  readonly accountId: string;
  readonly fileId: number;
}

export class FileLinks {
  constructor(
    private readonly db: Knex,
    private readonly now: () => number,
  ) {}

  /** A new link's token for this file of this account, valid `ttlMs` from now. */
  async create(target: FileLinkTarget, ttlMs: number): Promise<{ token: string; expiresAt: number }> {
    const token = newSecret('gwf_');
    const now = this.now();
    const expiresAt = now + ttlMs;
    await this.db('file_links').insert({ id: newId('fl'), token_hash: hashSecret(token), account_id: target.accountId, file_id: target.fileId, created_at: now, expires_at: expiresAt });
    return { token, expiresAt };
  }

  /** The file a live token opens; undefined for a token unknown, malformed or expired. */
  async resolve(token: string): Promise<FileLinkTarget | undefined> {
    if (!isSecretOf('gwf_', token)) return undefined;
    const row: { account_id: string; file_id: string | number } | undefined = await this.db('file_links')
      .where({ token_hash: hashSecret(token) })
      .where('expires_at', '>', this.now())
      .first('account_id', 'file_id');
    return row ? { accountId: row.account_id, fileId: Number(row.file_id) } : undefined;
  }
}
