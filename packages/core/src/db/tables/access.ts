/** Kysely table types: who may act: API keys, users, sessions, organizations and the audit log (db/schema.ts gathers them into Database). */
import type { ColumnType, Generated } from 'kysely';
import type { Json, JsonObject, NullableTimestamp, Timestamp } from './columns';

export interface ApiKeysTable {
  id: Generated<string>;
  name: string;
  keyPrefix: string;
  keyHash: string;
  scopes: string[];
  expiresAt: NullableTimestamp;
  revokedAt: NullableTimestamp;
  lastUsedAt: NullableTimestamp;
  createdAt: Timestamp;
}

/** who wrote an audit row: a stored key, the legacy ADMIN_API_KEY, or a signed-in user */
/** `system`: Waymark itself (the worker disabling a failing webhook endpoint) */
export type AuditActorType = 'key' | 'legacy' | 'user' | 'system';

export interface AuditLogsTable {
  id: Generated<string>;
  actor: string;
  actorKeyId: string | null;
  actorType: ColumnType<AuditActorType, AuditActorType | undefined, AuditActorType>;
  actorUserId: string | null;
  action: string;
  resource: string;
  resourceId: string | null;
  detail: Json<JsonObject | null>;
  ipAddress: string;
  createdAt: Timestamp;
}

export interface UsersTable {
  id: string;
  email: string;
  name: string | null;
  passwordHash: string;
  /** how the account was made: `admin` (from the server) or `member` (by invitation) */
  role: Generated<string>;
  /** the person's one role over the installation's data (migrations/0146_person_roles.ts) */
  accessRole: ColumnType<MemberRole, MemberRole | undefined, MemberRole>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface SessionsTable {
  id: string;
  userId: string;
  expiresAt: Timestamp;
}

export interface OrganizationsTable {
  id: Generated<string>;
  name: string;
  slug: string;
  createdAt: Timestamp;
}

export type MemberRole = 'owner' | 'admin' | 'editor' | 'viewer';

export interface OrganizationMembersTable {
  organizationId: string;
  userId: string;
  createdAt: Timestamp;
}

export interface OrganizationInvitationsTable {
  id: Generated<string>;
  organizationId: string;
  email: string;
  role: MemberRole;
  tokenHash: string;
  invitedBy: string | null;
  expiresAt: Timestamp;
  acceptedAt: NullableTimestamp;
  createdAt: Timestamp;
}
