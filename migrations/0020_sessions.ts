import { sql, type Kysely } from 'kysely';

/**
 * People who sign in (docs/auth.md). The users/organizations tables of 0001 gain what the auth
 * routes return (a display name, an organization slug); member roles become the closed set
 * owner/admin/editor/viewer; invitations are durable rows (7 days, single use, token stored as a
 * SHA-256 hash only); audit rows can name a user (actor type + user id) beside key actors.
 * Sessions themselves live in Redis, so the 0001 `sessions` table stays unused.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table users add column name text;

    alter table organizations add column slug text;
    update organizations set slug = id::text where slug is null;
    alter table organizations alter column slug set not null;
    create unique index organizations_slug_key on organizations (lower(slug));

    update organization_members set role = 'viewer' where role not in ('owner', 'admin', 'editor', 'viewer');
    alter table organization_members alter column role set default 'viewer';
    alter table organization_members add constraint organization_members_role_check
      check (role in ('owner', 'admin', 'editor', 'viewer'));
    create index organization_members_user_idx on organization_members (user_id, created_at);

    create table organization_invitations (
      id uuid primary key default gen_random_uuid(),
      organization_id uuid not null references organizations (id) on delete cascade,
      email text not null,
      role text not null check (role in ('owner', 'admin', 'editor', 'viewer')),
      token_hash text not null unique,
      invited_by text references users (id) on delete set null,
      expires_at timestamptz not null,
      accepted_at timestamptz,
      created_at timestamptz not null default now()
    );
    create index organization_invitations_org_idx on organization_invitations (organization_id, created_at desc);

    alter table audit_logs add column actor_type text not null default 'key'
      check (actor_type in ('key', 'legacy', 'user'));
    alter table audit_logs add column actor_user_id text;
    update audit_logs set actor_type = 'legacy' where actor = 'legacy' and actor_key_id is null;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table audit_logs drop column if exists actor_user_id;
    alter table audit_logs drop column if exists actor_type;
    drop table if exists organization_invitations;
    drop index if exists organization_members_user_idx;
    alter table organization_members drop constraint if exists organization_members_role_check;
    alter table organization_members alter column role set default 'member';
    drop index if exists organizations_slug_key;
    alter table organizations drop column if exists slug;
    alter table users drop column if exists name;
  `.execute(db);
}
