// The redemption codes of a batch just created, as a CSV file the operator downloads from the
// console (the codes are shown once: the gateway keeps only their hashes). RFC 4180: a header
// row, CRLF line ends, a field quoted when it holds a comma, a quote or a line break. Pure.

export interface CreatedBatch {
  readonly id: string;
  readonly amount_rub: string;
  readonly uses_per_code: number;
  readonly expires_at: string | number | null;
}

function field(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** A date field as ISO 8601 UTC: the API's ISO string as given, Unix seconds or milliseconds converted. */
function isoOf(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  return new Date(value < 1e11 ? value * 1000 : value).toISOString();
}

/** `code,amount_rub,uses,expires_at,batch_id` (the columns `gateway codes create` prints), one row per code, in the order given. */
export function codesCsv(batch: CreatedBatch, codes: readonly string[]): string {
  const rows = [['code', 'amount_rub', 'uses', 'expires_at', 'batch_id']];
  for (const code of codes) rows.push([code, batch.amount_rub, String(batch.uses_per_code), isoOf(batch.expires_at), batch.id]);
  return rows.map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}
