// Page paths under /cabinet/ and the `:name` patterns of the page registry. Pure (no DOM):
// unit-tested in test/web/paths.test.ts.

export const basePath = '/cabinet';

/** The page path of a location path: `/cabinet/keys` → `/keys`, `/cabinet/` → `/`. */
export function pagePathOf(pathname: string): string {
  if (pathname === basePath) return '/';
  if (!pathname.startsWith(`${basePath}/`)) return '/';
  const rest = pathname.slice(basePath.length);
  return rest.length > 1 && rest.endsWith('/') ? rest.slice(0, -1) : rest;
}

/** The address of a page path. */
export function hrefOf(pagePath: string): string {
  return pagePath === '/' ? `${basePath}/` : `${basePath}${pagePath}`;
}

/** The parameters of `path` under `pattern` (`/console/accounts/:id`), or undefined when it does not match. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const patternParts = pattern.split('/');
  const pathParts = path.split('/');
  if (patternParts.length !== pathParts.length) return undefined;
  const params: Record<string, string> = {};
  for (let index = 0; index < patternParts.length; index++) {
    const expected = patternParts[index]!;
    const actual = pathParts[index]!;
    if (expected.startsWith(':')) {
      if (actual === '') return undefined;
      try {
        params[expected.slice(1)] = decodeURIComponent(actual);
      } catch {
        return undefined; // a malformed escape: no page
      }
    } else if (expected !== actual) return undefined;
  }
  return params;
}
