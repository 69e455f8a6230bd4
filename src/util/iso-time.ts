// Times leave the program (CLI JSON, the admin API) as ISO 8601 UTC strings; stored as ms.
export const isoTime = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
