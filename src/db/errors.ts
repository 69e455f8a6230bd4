// Recognizing database errors the code handles on purpose, on both drivers.

/** A unique index refused the write (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT … UNIQUE). */
export function isUniqueViolation(error: unknown): boolean {
  const candidate = error as { code?: unknown; message?: unknown } | null;
  if (!candidate || typeof candidate !== 'object') return false;
  if (candidate.code === '23505') return true;
  return typeof candidate.message === 'string' && candidate.message.includes('UNIQUE constraint failed');
}
