/** One organization's members and pending invitations (the `/api/auth/organization/…` routes). */
export const organizationKeys = {
  members: (orgId: string) => ['organizations', orgId, 'members'] as const,
  invitations: (orgId: string) => ['organizations', orgId, 'invitations'] as const,
};
