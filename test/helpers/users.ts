// Users and their sessions in a test, made with the services the sign-up and login routes use
// (src/users/*), without going through a login page: a user who is a member of an account,
// and a logged-in browser of theirs (the cookie and CSRF token a login would give it).
import type { ServerServices } from '../../src/services.js';
import type { MemberRole } from '../../src/users/account-members.js';
import type { User } from '../../src/users/users.js';

let users = 0;

/** A new user (verified email `<name>-N@example.test` unless given) who is `role` of the account. */
export async function newMember(services: ServerServices, membership: { accountId: string; role: MemberRole; email?: string }): Promise<User> {
  return services.db.transaction(async (trx) => {
    const user = await services.users.users.insert(trx, { email: membership.email ?? `${membership.role}-${process.pid}-${users++}@example.test`, emailVerified: true, passwordHash: null, name: null, locale: 'en' });
    await services.users.members.add(trx, { accountId: membership.accountId, userId: user.id, role: membership.role, createdBy: 'test:users-helper' });
    return user;
  });
}

/** A logged-in browser of the user on the account, as a password login leaves it: the Cookie header value and the CSRF token. */
export async function userLogin(services: ServerServices, opening: { accountId: string; userId: string }): Promise<{ cookie: string; csrf: string; sessionId: string }> {
  const { session, cookieToken } = await services.cabinet.sessions.openForUser({ ...opening, method: 'password' }, { userAgent: 'test', address: '127.0.0.1' });
  return { cookie: `gateway_session=${cookieToken}`, csrf: session.csrfToken, sessionId: session.id };
}
