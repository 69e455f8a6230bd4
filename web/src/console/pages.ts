// The operator console's pages (an admin session), in navigation order. Each is a client of
// the admin API (/admin/v1/*, docs/admin-api.md); the session cookie authenticates it and
// src/api.ts adds the CSRF token to every change.
import type { PageDefinition } from '../pages/registry.js';
import { AccountPage } from './account.js';
import { AccountsPage } from './accounts.js';
import { AuditPage } from './audit.js';
import { CodeBatchPage } from './code-batch.js';
import { CodesPage } from './codes.js';
import { ConsoleHomePage } from './home.js';
import { JobsPage } from './jobs.js';
import { PaymentsPage } from './payments.js';
import { RequestsPage } from './requests.js';
import { UpstreamsPage } from './upstreams.js';
import { UsersPage } from './users.js';

export const consoleHome = '/console';

export const consolePages: readonly PageDefinition[] = [
  { path: '/console', title: 'nav.console', nav: true, component: ConsoleHomePage },
  { path: '/console/accounts', title: 'console.accounts.title', nav: true, component: AccountsPage },
  { path: '/console/accounts/:id', title: 'console.accounts.title', nav: false, component: AccountPage },
  { path: '/console/users', title: 'console.users.nav', nav: true, component: UsersPage },
  // console: money coming in (issue 32)
  { path: '/console/payments', title: 'console.payments.nav', nav: true, component: PaymentsPage },
  { path: '/console/codes', title: 'console.codes.nav', nav: true, component: CodesPage },
  { path: '/console/codes/:id', title: 'console.codes.nav', nav: false, component: CodeBatchPage },
  // console: operations
  { path: '/console/requests', title: 'console.requests.nav', nav: true, component: RequestsPage },
  { path: '/console/jobs', title: 'console.jobs.nav', nav: true, component: JobsPage },
  { path: '/console/upstreams', title: 'console.upstreams.nav', nav: true, component: UpstreamsPage },
  { path: '/console/audit', title: 'console.audit.nav', nav: true, component: AuditPage },
];
