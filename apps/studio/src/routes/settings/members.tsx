import type { ColumnDef } from '@tanstack/react-table';
import { useState, type FormEvent } from 'react';
import { useSession } from '../../api/session';
import { ConfirmButton } from '../../components/confirm-button';
import { DataTable } from '../../components/data-table';
import { Badge, ErrorPanel } from '../../components/feedback';
import { formatDate } from '../../components/format';
import { PageHeader } from '../../components/page';
import type { Role } from '../../data/auth/session-query';
import { useInvitationCreateMutation, useInvitationRevokeMutation } from '../../data/organizations/invitation-mutations';
import { useInvitationsQuery, type PendingInvitation } from '../../data/organizations/invitations-query';
import { useMemberRemoveMutation, useMemberRoleMutation } from '../../data/organizations/member-mutations';
import { useMembersQuery, type Member } from '../../data/organizations/members-query';

const roles: Role[] = ['owner', 'admin', 'editor', 'viewer'];

/**
 * The roles the signed-in person may hand out: only an owner grants, changes or removes the owner
 * role (the API answers 403 to an admin who tries), so an admin is not offered it.
 */
function assignableRoles(callerRole: Role): Role[] {
  return callerRole === 'owner' ? roles : roles.filter((role) => role !== 'owner');
}

/** Whether the signed-in manager may change or remove this member: an owner only by an owner. */
function mayManage(callerRole: Role, member: Member): boolean {
  return member.role !== 'owner' || callerRole === 'owner';
}

/** A member's role; the API refuses (409) to demote the last owner, and that message shows here. */
function RoleSelect({ orgId, member }: { orgId: string; member: Member }) {
  const { user } = useSession();
  const change = useMemberRoleMutation(orgId, member.userId);
  return (
    <span className="stack" style={{ gap: 4 }}>
      <select aria-label={`Role of ${member.email}`} value={member.role} disabled={change.isPending} onChange={(e) => change.mutate(e.target.value as Role)}>
        {assignableRoles(user.role).map((role) => (
          <option key={role}>{role}</option>
        ))}
      </select>
      {change.isError ? <ErrorPanel error={change.error} /> : null}
    </span>
  );
}

function RemoveMember({ orgId, member }: { orgId: string; member: Member }) {
  const { user } = useSession();
  const remove = useMemberRemoveMutation(orgId, member.userId);
  const self = member.userId === user.id;
  return (
    <ConfirmButton
      label={self ? 'Leave' : 'Remove'}
      title={self ? 'Leave this organization?' : `Remove ${member.email}?`}
      confirmLabel={self ? 'Leave organization' : 'Remove member'}
      danger
      onConfirm={() => remove.mutateAsync()}
    >
      {self
        ? 'You lose access to its journeys, contacts and settings at once. An owner or admin can invite you again.'
        : 'They lose access to this organization at once (their account stays, for other organizations). Invite them again to undo.'}
    </ConfirmButton>
  );
}

function Invite({ orgId }: { orgId: string }) {
  const { user } = useSession();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const invite = useInvitationCreateMutation(orgId, { onSuccess: () => setEmail('') });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate({ email, role });
  };
  return (
    <section className="card stack" aria-labelledby="invite">
      <h2 id="invite">Invite someone</h2>
      <form className="filters" onSubmit={submit}>
        <label className="field">
          Email
          <input type="email" required maxLength={254} value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label className="field">
          Role
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {assignableRoles(user.role).map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary" disabled={invite.isPending}>
          Send invitation
        </button>
      </form>
      {invite.isSuccess ? <p role="status">Invitation sent to {invite.data.invitation.email}; the link works once, for 7 days.</p> : null}
      {invite.isError ? <ErrorPanel error={invite.error} /> : null}
    </section>
  );
}

function Invitations({ orgId }: { orgId: string }) {
  const list = useInvitationsQuery(orgId);
  const revoke = useInvitationRevokeMutation(orgId);
  const columns: ColumnDef<PendingInvitation, unknown>[] = [
    { header: 'Email', cell: ({ row }) => row.original.email },
    { header: 'Role', cell: ({ row }) => <Badge value={row.original.role} /> },
    { header: 'Invited by', cell: ({ row }) => row.original.invitedBy ?? '—' },
    { header: 'Sent', cell: ({ row }) => formatDate(row.original.createdAt) },
    { header: 'Expires', cell: ({ row }) => formatDate(row.original.expiresAt) },
    {
      header: 'Actions',
      cell: ({ row }) => (
        <ConfirmButton
          label="Withdraw"
          title={`Withdraw the invitation of ${row.original.email}?`}
          confirmLabel="Withdraw invitation"
          danger
          onConfirm={() => revoke.mutateAsync(row.original.id)}
        >
          The link in their email stops working at once. You can invite them again later.
        </ConfirmButton>
      ),
    },
  ];
  return (
    <section aria-labelledby="pending" className="stack">
      <h2 id="pending">Pending invitations</h2>
      <DataTable
        label="Pending invitations"
        columns={columns}
        rows={list.data?.invitations}
        isLoading={list.isPending}
        error={list.error}
        empty="No invitation is waiting. Invite someone above; their link works once, for 7 days."
      />
    </section>
  );
}

/** /studio/settings/members: the people of your organization and their roles; owners and admins invite, change roles and remove. */
export default function Members() {
  const { user, can } = useSession();
  const orgId = user.organization?.id;
  const members = useMembersQuery(orgId);
  const manage = can.administer && orgId !== undefined;
  const columns: ColumnDef<Member, unknown>[] = [
    { header: 'Email', cell: ({ row }) => (row.original.userId === user.id ? `${row.original.email} (you)` : row.original.email) },
    { header: 'Name', cell: ({ row }) => row.original.name ?? '—' },
    {
      header: 'Role',
      cell: ({ row }) =>
        manage && mayManage(user.role, row.original) ? <RoleSelect orgId={orgId} member={row.original} /> : <Badge value={row.original.role} />,
    },
    { header: 'Joined', cell: ({ row }) => formatDate(row.original.joinedAt) },
    ...(manage
      ? [
          {
            header: 'Actions',
            cell: ({ row }) => (mayManage(user.role, row.original) ? <RemoveMember orgId={orgId} member={row.original} /> : null),
          } satisfies ColumnDef<Member, unknown>,
        ]
      : []),
  ];
  return (
    <div className="stack">
      <PageHeader
        title="Members"
        description={`People of ${user.organization?.name ?? 'your organization'}. Owners and admins manage everything, editors run journeys, viewers look.`}
      />
      {manage ? <Invite orgId={orgId} /> : null}
      <section aria-labelledby="members" className="stack">
        <h2 id="members">Members</h2>
        <DataTable
          label="Members"
          columns={columns}
          rows={members.data?.members}
          isLoading={members.isPending && orgId !== undefined}
          error={members.error}
          empty="You are not a member of any organization. Ask an owner or admin to invite you."
        />
      </section>
      {manage ? <Invitations orgId={orgId} /> : null}
    </div>
  );
}
