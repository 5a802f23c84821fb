import { z } from 'zod';
import type { Scope } from '../auth/scopes';

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
