import type { Db } from '../db/database';
import { listMemberships, type Membership } from './organizations';
import { abilitiesOfRole, type Abilities, type MemberRole } from './roles';
import { findUserById } from '../users/users';

interface UserAccess {
  user: { id: string; email: string };
  /** the person's one role over the data, whichever organization is active */
  role: MemberRole;
  memberships: Membership[];
}

interface Cached {
  access: UserAccess | undefined;
  at: number;
}

/**
 * Who a session's user is and their role in each organization, for /v1/admin/* requests. Kept
 * for a few seconds per user so a session costs about what a bearer key does (keys are cached
 * for 60 s); a role change made on this instance is seen at once (`forget`), elsewhere within
 * the TTL.
 */
export class SessionPrincipals {
  private readonly cache = new Map<string, Cached>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly deps: { db: Db; ttlMs?: number; now?: () => number }) {
    this.ttlMs = deps.ttlMs ?? 5_000;
    this.now = deps.now ?? Date.now;
  }

  async load(userId: string): Promise<UserAccess | undefined> {
    const cached = this.cache.get(userId);
    if (cached !== undefined && this.now() - cached.at < this.ttlMs) return cached.access;
    const user = await findUserById(this.deps.db, userId);
    const access =
      user === undefined
        ? undefined
        : { user: { id: user.id, email: user.email }, role: user.accessRole, memberships: await listMemberships(this.deps.db, userId) };
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(userId, { access, at: this.now() });
    return access;
  }

  forget(userId: string): void {
    this.cache.delete(userId);
  }
}

/**
 * The active organization: the one named (by id or slug) in `X-Waymark-Org`, else the user's
 * first. It picks which team a person manages; their power over the data is their own role.
 */
export function activeMembership(memberships: readonly Membership[], requested: string | undefined): Membership | undefined {
  if (requested === undefined || requested === '') return memberships[0];
  return memberships.find((membership) => membership.organizationId === requested || membership.slug === requested.toLowerCase());
}

interface SessionAccess {
  organization: { id: string; name: string; slug: string; role: MemberRole } | null;
  abilities: Abilities;
}

/**
 * For the session endpoint: the organization whose members and invitations this user manages (as
 * `activeMembership` picks it) and what their role allows, read fresh so a role change shows on
 * the next read. The role is the person's, so the organization chosen never changes it.
 */
export async function sessionAccess(db: Db, userId: string, requested: string | undefined): Promise<SessionAccess> {
  const membership = activeMembership(await listMemberships(db, userId), requested);
  return {
    organization: membership === undefined ? null : { id: membership.organizationId, name: membership.name, slug: membership.slug, role: membership.role },
    abilities: abilitiesOfRole(membership?.role),
  };
}
