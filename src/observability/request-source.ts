// Which traffic a request-log row belongs to: the API's clients (`api`: /v1/…), the web
// cabinet's own pages (`cabinet`: /cabinet/api/…, made through the account's cabinet key) or the
// Telegram bot (`bot`: what its users asked, through the account's bot key; src/bot/ writes
// these rows itself, since they come through no HTTP path).
// The operator reads them apart (GET /admin/v1/request-log?source=…, `gateway requests ls
// --source`, the console's filter): a customer browsing the cabinet is not API traffic.
// The admin API's and the console's own calls are not in the request log: they change nothing
// a client pays for, and what they change is in the audit log.

export const requestSources = ['api', 'cabinet', 'bot'] as const;
export type RequestSource = (typeof requestSources)[number];

/** The source of a request that the request log keeps (a /v1/ or /cabinet/api/ path), or undefined for one it does not. */
export function requestSourceOf(path: string): RequestSource | undefined {
  if (path.startsWith('/v1/')) return 'api';
  if (path.startsWith('/cabinet/api/')) return 'cabinet';
  return undefined;
}
