// The generation history (images now; videos and music with the jobs): what was asked, of
// which model, what it cost, and the file it produced. The history endpoints come with the
// files issue; the records start with the first generating endpoint.
import type { Knex } from 'knex';
import { unitsToSql } from '../billing/money.js';
import { newId } from '../util/ids.js';

export interface GenerationRecord {
  readonly accountId: string;
  readonly keyId: string;
  readonly type: 'image' | 'video' | 'music';
  readonly model: string;
  readonly prompt: string | null;
  readonly chargedUnits: bigint;
  readonly fileId: string | null;
  readonly requestId: string;
}

export class Generations {
  constructor(
    private readonly db: Knex,
    private readonly now: () => number = Date.now,
  ) {}

  async record(records: readonly GenerationRecord[]): Promise<string[]> {
    const rows = records.map((record) => ({
      id: newId('gen'),
      account_id: record.accountId,
      key_id: record.keyId,
      type: record.type,
      model: record.model,
      prompt: record.prompt,
      charged_units: unitsToSql(record.chargedUnits),
      file_id: record.fileId,
      request_id: record.requestId,
      created_at: this.now(),
    }));
    if (rows.length > 0) await this.db('generations').insert(rows);
    return rows.map((row) => row.id);
  }
}
