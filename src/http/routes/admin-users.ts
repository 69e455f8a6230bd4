// /admin/v1/users: the people who log in to the cabinet (issue 31). List (of one account with
// ?account=), show with the accounts each acts for, disable and enable — through the services
// `gateway users …` uses, audited with the actor. Disabling ends the user's sessions at once
// (src/users/users.ts); the accounts they belong to keep working for their other members.
import * as schemas from '../../admin/schemas.js';
import { presentUser, presentUserDetail } from '../../cli/present.js';
import { wholeList } from '../../cli/list-output.js';
import { validate } from '../../validation/zod-details.js';
import type { Handler } from '../state.js';
import { actorOf } from './admin-actor.js';

export const listUsers: Handler = async (ctx, { accounts, users }) => {
  const query = validate(schemas.usersQuery, ctx.query, 'query');
  if (query.account === undefined) {
    ctx.body = wholeList((await users.users.list()).map(presentUser));
    return;
  }
  // One account's members: each with their role in it.
  const accountId = (await accounts.find(query.account)).id;
  const roles = new Map((await users.members.ofAccount(accountId)).map((membership) => [membership.userId, membership.role]));
  ctx.body = wholeList((await users.users.list({ accountId })).map((user) => ({ ...presentUser(user), role: roles.get(user.id) })));
};

export const showUser: Handler = async (ctx, { users }) => {
  const user = await users.users.find(ctx.params.id!);
  ctx.body = presentUserDetail(user, await users.members.ofUser(user.id));
};

const setDisabled =
  (disabled: boolean): Handler =>
  async (ctx, { users }) => {
    const before = await users.users.find(ctx.params.id!);
    const user = await users.users.setDisabled(before.id, disabled, actorOf(ctx));
    ctx.body = { ...presentUser(user), changed: (before.disabledAt !== null) !== disabled };
  };

export const disableUser = setDisabled(true);
export const enableUser = setDisabled(false);
