// Reading a nullable number column back from a row: PostgreSQL's driver gives bigint columns
// (every ms timestamp, every limit) as strings, SQLite as numbers; both become a number, and
// NULL stays null. One helper for every row mapper, so the two backends read the same.
export const optionalNumber = (value: string | number | null) => (value === null ? null : Number(value));
