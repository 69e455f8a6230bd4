// The signed-in session for the pages that adapt to it (a member sees no owner controls; the
// members page switches accounts): the shell provides it, with the way to replace it after a
// switch or a join (a new session and CSRF token).
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session } from './session.js';

export interface SessionHolder {
  readonly session: Session | null;
  replace(next: Session): void;
}

export const SessionContext = createContext<SessionHolder>({ session: null, replace: () => undefined });

export const useSession = () => useContext(SessionContext);

/** Whether the session may do what only the account's owners may (money, members, account details). */
export const isOwner = (session: Session | null) => session?.role === 'owner';
