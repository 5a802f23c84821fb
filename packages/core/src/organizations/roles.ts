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

/** Owners and admins manage members, invitations and organizations. */
export function managesOrganization(role: MemberRole): boolean {
  return role === 'owner' || role === 'admin';
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
