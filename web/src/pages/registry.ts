// Which pages exist, by session kind. A page path may hold `:name` parameters
// (`/console/accounts/:id`); the first pattern that matches wins.
import type { FunctionComponent } from 'preact';
import type { MessageKey } from '../i18n/en.js';
import { matchPath } from '../paths.js';

export interface PageDefinition {
  readonly path: string;
  /** Its name in the navigation and its heading. */
  readonly title: MessageKey;
  /** Listed in the navigation (pages reached from another page are not). */
  readonly nav: boolean;
  readonly component: FunctionComponent<{ params: Record<string, string> }>;
}

export function findPage(pages: readonly PageDefinition[], path: string): { page: PageDefinition; params: Record<string, string> } | undefined {
  for (const page of pages) {
    const params = matchPath(page.path, path);
    if (params) return { page, params };
  }
  return undefined;
}
