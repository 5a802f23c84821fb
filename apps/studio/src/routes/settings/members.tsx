import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState, type FormEvent } from 'react';
import { changeMemberRole, inviteMember, listMembers, type Member } from '../../api/auth';
import { useSession, type Role } from '../../api/session';
import { DataTable } from '../../components/data-table';
import { Badge, ErrorPanel } from '../../components/feedback';
import { formatDate } from '../../components/format';
import { PageHeader } from '../../components/page';

const roles: Role[] = ['owner', 'admin', 'editor', 'viewer'];

function RoleSelect({ orgId, member }: { orgId: string; member: Member }) {
  const queryClient = useQueryClient();
  const change = useMutation({
    mutationFn: (role: Role) => changeMemberRole(orgId, member.userId, role),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['members', orgId] }),
  });
  return (
    <span className="stack" style={{ gap: 4 }}>
      <select aria-label={`Role of ${member.email}`} value={member.role} disabled={change.isPending} onChange={(e) => change.mutate(e.target.value as Role)}>
        {roles.map((role) => (
          <option key={role}>{role}</option>
        ))}
      </select>
      {change.isError ? <ErrorPanel error={change.error} /> : null}
    </span>
  );
}

function Invite({ orgId }: { orgId: string }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const invite = useMutation({ mutationFn: () => inviteMember(orgId, { email, role }), onSuccess: () => setEmail('') });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate();
  };
  return (
    <section className="card stack" aria-labelledby="invite">
      <h2 id="invite">Invite someone</h2>
      <form className="filters" onSubmit={submit}>
        <label className="field">
          Email
          <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label className="field">
          Role
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {roles.map((value) => (
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

/** /studio/settings/members: the people of your organization and their roles; invitations (owners and admins). */
export default function Members() {
  const { user, can } = useSession();
  const orgId = user.organization?.id;
  const members = useQuery({ queryKey: ['members', orgId], queryFn: () => listMembers(orgId ?? ''), enabled: orgId !== undefined });
  const columns: ColumnDef<Member, unknown>[] = [
    { header: 'Email', cell: ({ row }) => row.original.email },
    { header: 'Name', cell: ({ row }) => row.original.name ?? '—' },
    {
      header: 'Role',
      cell: ({ row }) =>
        can.administer && orgId !== undefined && row.original.userId !== user.id ? (
          <RoleSelect orgId={orgId} member={row.original} />
        ) : (
          <Badge value={row.original.role} />
        ),
    },
    { header: 'Joined', cell: ({ row }) => formatDate(row.original.joinedAt) },
  ];
  return (
    <div className="stack">
      <PageHeader
        title="Members"
        description={`People of ${user.organization?.name ?? 'your organization'}. Owners and admins manage everything, editors run journeys, viewers look.`}
      />
      {can.administer && orgId !== undefined ? <Invite orgId={orgId} /> : null}
      <DataTable
        label="Members"
        columns={columns}
        rows={members.data?.members}
        isLoading={members.isPending && orgId !== undefined}
        error={members.error}
        empty="You are not a member of any organization."
      />
    </div>
  );
}
