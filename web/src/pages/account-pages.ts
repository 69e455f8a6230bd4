// The account cabinet's pages, in navigation order.
import { FilesPage } from './files.js';
import { GalleryPage } from './gallery.js';
import { HistoryPage } from './history.js';
import { KeysPage } from './keys.js';
import { MembersPage } from './members.js';
import { ModelsPage } from './models.js';
import { OverviewPage } from './overview.js';
import { PlaygroundPage } from './playground.js';
import { ProfilePage } from './profile.js';
import type { PageDefinition } from './registry.js';
import { TopUpPage } from './top-up.js';

export const accountPages: readonly PageDefinition[] = [
  { path: '/', title: 'nav.overview', nav: true, component: OverviewPage },
  { path: '/topup', title: 'nav.topup', nav: true, component: TopUpPage },
  { path: '/history', title: 'nav.history', nav: true, component: HistoryPage },
  { path: '/gallery', title: 'nav.gallery', nav: true, component: GalleryPage },
  { path: '/files', title: 'nav.files', nav: true, component: FilesPage },
  { path: '/keys', title: 'nav.keys', nav: true, component: KeysPage },
  { path: '/playground', title: 'nav.playground', nav: true, component: PlaygroundPage },
  { path: '/models', title: 'nav.models', nav: true, component: ModelsPage },
  { path: '/members', title: 'nav.members', nav: true, component: MembersPage },
  // The user's password and email (linked from the header, for sessions of a user).
  { path: '/profile', title: 'password.profile.title', nav: false, component: ProfilePage },
];
