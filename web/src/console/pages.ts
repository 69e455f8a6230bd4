// The operator console's pages (an admin session), in navigation order. Each is a client of
// the admin API (/admin/v1/*, docs/admin-api.md); the session cookie authenticates it and
// src/api.ts adds the CSRF token to every change.
import type { PageDefinition } from '../pages/registry.js';
import { AccountPage } from './account.js';
import { AccountsPage } from './accounts.js';
import { ConsoleHomePage } from './home.js';

export const consoleHome = '/console';

export const consolePages: readonly PageDefinition[] = [
  { path: '/console', title: 'nav.console', nav: true, component: ConsoleHomePage },
  { path: '/console/accounts', title: 'console.accounts.title', nav: true, component: AccountsPage },
  { path: '/console/accounts/:id', title: 'console.accounts.title', nav: false, component: AccountPage },
];
