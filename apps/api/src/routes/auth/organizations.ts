import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { unauthorized } from '@waymark/core/errors/app-error';
import { acceptInvitation, inviteMember } from '@waymark/core/organizations/invitations';
import { changeRoleAs, createOrganizationAs, removeMemberAs } from '@waymark/core/organizations/member-admin';
import { getCallerRole, listMembers, listMemberships } from '@waymark/core/organizations/organizations';
import { listPendingInvitations, revokeInvitation } from '@waymark/core/organizations/pending-invitations';
import { memberRoleSchema } from '@waymark/core/organizations/roles';
import { findUserById } from '@waymark/core/users/users';
import type { AppDeps } from '../../deps';
import {
  authErrorBody,
  emailField,
  invitation,
  member,
  okBody,
  organizationRecord,
  organizationSummary,
  pendingInvitation,
  sessionErrors,
  signedIn,
} from '../../schemas/auth';
import { assertSameOrigin } from '../../http/same-origin';
import { publicSession, requireSession, setCookie } from '../../http/session-cookie';
import type { RoutePlugin } from '../../http/type-provider';
import type { AuthRouteOptions } from './options';

const tags = ['organizations'];
const security = [{ session: [] }];
const orgParams = z.object({ orgId: z.uuid() });
const memberParams = orgParams.extend({ userId: z.string().min(1).max(200) });
const invitationParams = orgParams.extend({ invitationId: z.uuid() });
const withErrors = { ...sessionErrors, 404: authErrorBody, 409: authErrorBody };

/** The signed-in caller (401 without a session); state changes also pass the origin check. */
async function signedInCaller(deps: AppDeps, origins: ReadonlySet<string>, request: FastifyRequest, reply: FastifyReply) {
  const session = await requireSession(deps.sessions, request, reply);
  assertSameOrigin(request, origins);
  const user = await findUserById(deps.db, session.userId);
  if (user === undefined) throw unauthorized('Not signed in');
  return { id: user.id, email: user.email, ipAddress: request.ip };
}

/** Organizations, members, roles and invitations (docs/auth.md). Sign-up is closed: invitations are how people join. */
export const authOrganizationRoutes: RoutePlugin<AuthRouteOptions> = async (app, { deps, origins }) => {
  app.get(
    '/api/auth/organization/list',
    {
      schema: {
        tags,
        summary: 'My organizations and my role in each',
        security,
        response: { 200: z.object({ organizations: z.array(organizationSummary) }), 401: authErrorBody },
      },
    },
    async (request, reply) => {
      const caller = await signedInCaller(deps, origins, request, reply);
      const memberships = await listMemberships(deps.db, caller.id);
      return { organizations: memberships.map(({ organizationId, name, slug, role }) => ({ id: organizationId, name, slug, role })) };
    },
  );

  app.post(
    '/api/auth/organization/create',
    {
      schema: {
        tags,
        summary: 'Create an organization (owners only; at most 5 per installation)',
        security,
        body: z.strictObject({
          name: z.string().trim().min(1).max(100),
          slug: z
            .string()
            .regex(/^[a-z0-9][a-z0-9-]{0,47}$/, 'lower-case letters, digits and dashes, at most 48')
            .optional(),
        }),
        response: { 201: z.object({ organization: organizationRecord }), ...withErrors },
      },
    },
    async (request, reply) => {
      const caller = await signedInCaller(deps, origins, request, reply);
      const organization = await createOrganizationAs(deps.db, caller, request.body);
      return reply.status(201).send({ organization });
    },
  );

  app.get(
    '/api/auth/organization/:orgId/members',
    {
      schema: {
        tags,
        summary: 'Members of an organization I belong to',
        security,
        params: orgParams,
        response: { 200: z.object({ members: z.array(member) }), 401: authErrorBody, 404: authErrorBody },
      },
    },
    async (request, reply) => {
      const caller = await signedInCaller(deps, origins, request, reply);
      await getCallerRole(deps.db, request.params.orgId, caller.id);
      return { members: await listMembers(deps.db, request.params.orgId) };
    },
  );

  app.patch(
    '/api/auth/organization/:orgId/members/:userId',
    {
      schema: {
        tags,
        summary: "Change a person's role (owners and admins; only an owner grants, changes or removes owner; the last owner cannot be demoted)",
        description:
          "A person has one role over the installation's data, the same in every organization they belong to: this changes it everywhere. " +
          'An admin gets 403 for making anyone owner (themselves included) or changing an owner; demoting the last owner of an organization is a 409.',
        security,
        params: memberParams,
        body: z.strictObject({ role: memberRoleSchema }),
        response: { 200: okBody, ...withErrors },
      },
    },
    async (request, reply) => {
      const caller = await signedInCaller(deps, origins, request, reply);
      await changeRoleAs(deps.db, caller, { organizationId: request.params.orgId, userId: request.params.userId, role: request.body.role });
      deps.sessionPrincipals.forget(request.params.userId);
      return { ok: true as const };
    },
  );

  app.delete(
    '/api/auth/organization/:orgId/members/:userId',
    {
      schema: {
        tags,
        summary: 'Remove a member from this organization (owners and admins; only an owner removes an owner; the last owner cannot be removed)',
        security,
        params: memberParams,
        response: { 200: okBody, ...withErrors },
      },
    },
    async (request, reply) => {
      const caller = await signedInCaller(deps, origins, request, reply);
      const { lastTeam } = await removeMemberAs(deps.db, caller, { organizationId: request.params.orgId, userId: request.params.userId });
      if (lastTeam) await deps.sessions.invalidateUser(request.params.userId);
      deps.sessionPrincipals.forget(request.params.userId);
      return { ok: true as const };
    },
  );

  app.post(
    '/api/auth/organization/:orgId/invite',
    {
      schema: {
        tags,
        summary: 'Invite someone by email (owners and admins)',
        description:
          'Emails a link to `/studio/accept-invite?token=…`, valid once for 7 days. The only way a new person gets an account. ' +
          'The role is the one a new account gets (only an owner invites an owner); a person who already has an account joins with their own role.',
        security,
        params: orgParams,
        body: z.strictObject({ email: emailField, role: memberRoleSchema }),
        response: { 201: z.object({ invitation }), ...withErrors },
      },
    },
    async (request, reply) => {
      const caller = await signedInCaller(deps, origins, request, reply);
      const { invitation, sending } = await inviteMember(deps.invitations, {
        organizationId: request.params.orgId,
        inviter: caller,
        email: request.body.email,
        role: request.body.role,
        ipAddress: request.ip,
      });
      // started before the answer, so the email's run outlives this process (docs/email.md, "System
      // emails"); a send that fails for good is recorded by the send path itself (failed + DLQ)
      await sending.catch((error: unknown) => request.log.error({ err: error }, 'invitation email could not be sent'));
      return reply.status(201).send({ invitation });
    },
  );

  app.get(
    '/api/auth/organization/:orgId/invitations',
    {
      schema: {
        tags,
        summary: 'Invitations not accepted yet and not expired, newest first (owners and admins)',
        security,
        params: orgParams,
        response: { 200: z.object({ invitations: z.array(pendingInvitation) }), 401: authErrorBody, 403: authErrorBody, 404: authErrorBody },
      },
    },
    async (request, reply) => {
      const caller = await signedInCaller(deps, origins, request, reply);
      return { invitations: await listPendingInvitations(deps.invitations, { organizationId: request.params.orgId, callerId: caller.id }) };
    },
  );

  app.delete(
    '/api/auth/organization/:orgId/invitations/:invitationId',
    {
      schema: {
        tags,
        summary: 'Withdraw an invitation that was not accepted yet; its link stops working (owners and admins)',
        security,
        params: invitationParams,
        response: { 200: okBody, ...withErrors },
      },
    },
    async (request, reply) => {
      const caller = await signedInCaller(deps, origins, request, reply);
      await revokeInvitation(deps.db, caller, { organizationId: request.params.orgId, invitationId: request.params.invitationId });
      return { ok: true as const };
    },
  );

  app.post(
    '/api/auth/accept-invitation',
    {
      schema: {
        tags,
        summary: 'Accept an invitation and sign in',
        description:
          'Creates the account (password 8 to 128 characters) or, for an email that already has one, checks its password; ' +
          'then joins the organization and sets the session cookie. A used or expired token gets 400 with code `INVALID_TOKEN`.',
        body: z.strictObject({ token: z.string().min(1).max(200), password: z.string().min(1).max(128), name: z.string().trim().min(1).max(100).optional() }),
        response: { 200: signedIn, 400: authErrorBody, 401: authErrorBody, 403: authErrorBody },
      },
    },
    async (request, reply) => {
      if (request.headers.origin !== undefined) assertSameOrigin(request, origins);
      const user = await acceptInvitation(deps.invitations, { ...request.body, ipAddress: request.ip });
      const session = await deps.sessions.create(user.id);
      setCookie(reply, deps.sessions.cookie(session));
      return { user, session: publicSession(session) };
    },
  );
};
