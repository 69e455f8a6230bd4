// The cabinet's part of the periodic sweep of `serve` and `worker`: ended login links and
// sessions removed (src/cabinet/cleanup.ts). Never throws: a failed round is logged and the
// next one tries again.
import type { ServerServices } from '../services.js';

export function sweepCabinet(services: Pick<ServerServices, 'cabinet' | 'logger'>): void {
  services.cabinet.removeEnded().then(
    (removed) => {
      if (removed.loginLinks + removed.sessions > 0) services.logger.info({ login_links: removed.loginLinks, sessions: removed.sessions }, 'ended cabinet login links and sessions removed');
    },
    (error: unknown) => services.logger.error({ err: error }, 'cabinet cleanup failed'),
  );
}
