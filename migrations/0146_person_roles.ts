import { sql, type Kysely } from 'kysely';

/**
 * One role per person over the installation's data (docs/auth.md, "Organizations, members,
 * roles"). Data has no organization column, so a role held per organization let a person act with
 * the best role of any team they belonged to (`X-Waymark-Org`), and an admin who created a team
 * became its owner. The role moves to the person (`users.access_role`); a membership only says
 * which teams a person belongs to.
 *
 * What an existing installation gets: each person keeps the power they could already use, the
 * best role of any of their memberships, except that `owner` is kept only by administrators made
 * from the server (`users.role = 'admin'`: the CLI and `STUDIO_ADMIN_EMAIL`) and by owners of the
 * oldest organization (the one those administrators own). An owner only of an organization they
 * created becomes `admin`: the same data power, without the owner role they granted themselves.
 * Should that leave no owner at all, the owners of other organizations stay owners. A person in
 * no organization gets `viewer` (and, as before, no access until someone adds them to a team).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table users add column access_role text not null default 'viewer'
      check (access_role in ('owner', 'admin', 'editor', 'viewer'));

    with oldest as (select id from organizations order by created_at, id limit 1),
    best as (
      select m.user_id,
        min(case m.role when 'owner' then 1 when 'admin' then 2 when 'editor' then 3 else 4 end) as rank,
        bool_or(m.role = 'owner' and m.organization_id = (select id from oldest)) as owns_oldest
      from organization_members m group by m.user_id
    )
    update users u set access_role = case
        when b.rank = 1 and (b.owns_oldest or u.role = 'admin') then 'owner'
        when b.rank <= 2 then 'admin'
        when b.rank = 3 then 'editor'
        else 'viewer' end
      from best b where b.user_id = u.id;

    update users u set access_role = 'owner'
      where not exists (select 1 from users where access_role = 'owner')
        and exists (select 1 from organization_members m where m.user_id = u.id and m.role = 'owner');

    alter table organization_members drop constraint if exists organization_members_role_check;
    alter table organization_members drop column role;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table organization_members add column role text not null default 'viewer'
      check (role in ('owner', 'admin', 'editor', 'viewer'));
    update organization_members m set role = u.access_role from users u where u.id = m.user_id;
    alter table users drop column access_role;
  `.execute(db);
}
