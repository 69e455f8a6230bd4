// The web cabinet's services in one object (services.cabinet): login links, sessions, admin
// tokens and the accounts' cabinet keys. docs/cabinet.md tells the whole story.
import type { Knex } from 'knex';
import type { ApiKeys } from '../auth/api-keys.js';
import { AdminTokens } from './admin-tokens.js';
import { CabinetKeys } from './cabinet-key.js';
import { removeEndedCabinetRecords } from './cleanup.js';
import { type CabinetSettings, LoginLinks } from './login-links.js';
import { CabinetSessions } from './sessions.js';

export interface Cabinet {
  readonly settings: CabinetSettings;
  readonly links: LoginLinks;
  readonly sessions: CabinetSessions;
  readonly adminTokens: AdminTokens;
  readonly keys: CabinetKeys;
  /** Removes used and expired login links and sessions ended a day ago (cleanup.ts): the sweep's part. */
  removeEnded(): Promise<{ loginLinks: number; sessions: number }>;
}

export function openCabinet(db: Knex, apiKeys: ApiKeys, settings: CabinetSettings, now: () => number): Cabinet {
  const links = new LoginLinks(db, settings, now);
  return {
    settings,
    links,
    sessions: new CabinetSessions(db, links, settings, now),
    adminTokens: new AdminTokens(db, now),
    keys: new CabinetKeys(db, apiKeys),
    removeEnded: () => removeEndedCabinetRecords(db, now()),
  };
}
