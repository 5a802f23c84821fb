import { createContext, useContext, type ReactNode } from 'react';
import type { SignedInSession } from '../data/auth/session-query';

const SessionContext = createContext<SignedInSession | undefined>(undefined);

/** `can` is what the server says the role allows (get-session); the API stays the authority (403 on anything else). */
export function SessionProvider({ session, children }: { session: SignedInSession; children: ReactNode }) {
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

/** The signed-in user and their abilities; only used below the signed-in layout. */
export function useSession(): SignedInSession {
  const value = useContext(SessionContext);
  if (value === undefined) throw new Error('useSession outside the signed-in layout');
  return value;
}
