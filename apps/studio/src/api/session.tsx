import { createContext, useContext, type ReactNode } from 'react';

export type Role = 'owner' | 'admin' | 'editor' | 'viewer';

export interface SessionUser {
  id: string;
  email: string;
  name: string | null;
  /** the role in the active organization, which sets the admin-plane scope */
  role: Role;
  organization: { id: string; name: string } | null;
}

/** What the signed-in person may do; the server stays the authority (403 on anything else). */
export interface Abilities {
  /** toggle journeys, enroll, cancel, edit contacts, send tests (scope journey-admin) */
  manageJourneys: boolean;
  /** keys, DLQ, replay, GDPR delete, members (scope full-admin) */
  administer: boolean;
}

/** Role → admin-plane scope, as the API maps it: owner/admin full-admin, editor journey-admin, viewer read. */
export function abilitiesOf(role: Role): Abilities {
  return { manageJourneys: role !== 'viewer', administer: role === 'owner' || role === 'admin' };
}

interface SessionValue {
  user: SessionUser;
  can: Abilities;
}

const SessionContext = createContext<SessionValue | undefined>(undefined);

export function SessionProvider({ user, children }: { user: SessionUser; children: ReactNode }) {
  return <SessionContext.Provider value={{ user, can: abilitiesOf(user.role) }}>{children}</SessionContext.Provider>;
}

/** The signed-in user and their abilities; only used below the signed-in layout. */
export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (value === undefined) throw new Error('useSession outside the signed-in layout');
  return value;
}
