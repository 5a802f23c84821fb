import { z } from 'zod';
import { hasScope, type Scope } from '../auth/scopes';

export const memberRoleSchema = z.enum(['owner', 'admin', 'editor', 'viewer']);
export type MemberRole = z.infer<typeof memberRoleSchema>;

/** What a member's role grants on /v1/admin/*. A session never carries `ingest` (docs/auth.md). */
const roleScope: Record<MemberRole, Scope> = {
  owner: 'full-admin',
  admin: 'full-admin',
  editor: 'journey-admin',
  viewer: 'read',
};

export function scopeOfRole(role: MemberRole): Scope {
  return roleScope[role];
}

/** Owners and admins manage the members and invitations of the teams they belong to. */
export function managesOrganization(role: MemberRole): boolean {
  return role === 'owner' || role === 'admin';
}

/**
 * Why `caller` may not give `target` the role `next` (or take theirs away, `next` undefined), or
 * undefined when they may. Roles are granted from above: only an owner grants, changes or removes
 * the owner role, an admin manages the other roles, editors and viewers manage nobody.
 */
export function roleChangeRefusal(caller: MemberRole, target: MemberRole, next: MemberRole | undefined): string | undefined {
  if (!managesOrganization(caller)) return 'Only an owner or admin of this organization can do this';
  if (caller !== 'owner' && (target === 'owner' || next === 'owner')) return 'Only an owner can grant, change or remove the owner role';
  return undefined;
}

/**
 * What a member may do in the studio, from the scope their role grants (the admin API stays the
 * authority: anything else answers 403). The session endpoint carries it, so the studio keeps no
 * copy of the role map.
 */
export interface Abilities {
  /** switch journeys, enroll, cancel, edit contacts, send tests (journey-admin) */
  manageJourneys: boolean;
  /** keys, DLQ, replay, webhooks, alerts, members (full-admin) */
  administer: boolean;
}

/** A signed-in user with no organization may do nothing on /v1/admin/*. */
export function abilitiesOfRole(role: MemberRole | undefined): Abilities {
  const granted = role === undefined ? [] : [scopeOfRole(role)];
  return { manageJourneys: hasScope(granted, 'journey-admin'), administer: hasScope(granted, 'full-admin') };
}
