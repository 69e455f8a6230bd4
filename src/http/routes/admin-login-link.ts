// POST /admin/v1/accounts/:id/login-link: a one-time login link to an account's cabinet, for a
// shop's website that logs its customers in without a shell — the service and the answer of
// `gateway cabinet link --account A --json` ({url, path, expires_at}), pointed where the CLI
// points it (src/process/link-origin.ts), and audited (login_link.create) with the actor. A
// link is a credential, so the route needs the `admin` scope. The operator console's own link
// (`--admin`) stays the CLI's: a token must not be able to mint a session holding every scope.
import { linkOrigin } from '../../process/link-origin.js';
import type { Handler } from '../state.js';
import { actorOf } from './admin-actor.js';

export const createLoginLink: Handler = async (ctx, { accounts, cabinet, config, db, now }) => {
  const account = await accounts.find(ctx.params.id!);
  const { link, path } = await cabinet.links.create({ kind: 'account', accountId: account.id, actor: actorOf(ctx) });
  const { origin } = await linkOrigin(db, config, now());
  ctx.status = 201;
  ctx.body = { url: origin === null ? null : `${origin}${path}`, path, expires_at: new Date(link.expiresAt).toISOString() };
};
