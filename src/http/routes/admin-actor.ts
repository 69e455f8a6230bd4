// Who makes a change through the admin API: the actor the admin auth kind set
// (`admin-token:<id>` or `cabinet:<session id>`), written to the audit log with the change.
import type { Context } from '../state.js';

export function actorOf(ctx: Context): string {
  const actor = ctx.state.actor;
  // The route table gives every changing admin route auth 'admin', which sets it: a route without it is a bug.
  if (actor === undefined) throw new Error(`admin route ${ctx._matchedRoute ?? ctx.path} ran without an authenticated actor`);
  return actor;
}
