import { z } from 'zod';
import { resumeBreakers } from '@waymark/core/deliverability/breaker';
import { MAILBOX_PROVIDERS } from '@waymark/core/delivery/mailbox-provider';
import { resumeReputationPausedBroadcasts } from '@waymark/core/broadcasts/broadcast-reputation';
import { alertingBreaker } from '@waymark/core/webhooks/email-provider/reputation-watch';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors } from '../../schemas/common';

const group = z.enum(['marketing', 'transactional']);
const provider = z.enum(MAILBOX_PROVIDERS);

// one breaker (both keys) or every breaker (neither): a union the OpenAPI document states as it is
const resumeBody = z.union([z.object({ group, provider }).strict(), z.object({}).strict()]);

const resumed = z
  .object({
    resumed: z.array(z.object({ group, provider: z.string(), from: z.enum(['slowed', 'paused']) })),
    broadcasts: z.array(z.uuid()).describe('the broadcasts the breaker had paused, resumed'),
  })
  .meta({ id: 'DeliverabilityResume' });

/** Admin plane: the reputation breaker's manual resume (docs/email.md, "Reputation breaker"). */
export const deliverabilityResumeRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/v1/admin/deliverability/resume',
    {
      config: { scope: 'full-admin', audit: { resource: 'deliverability', action: 'resume' } },
      schema: {
        tags: ['deliverability'],
        summary: 'Resume the reputation breaker by hand',
        description:
          'Every tripped breaker (no body), or one group and mailbox provider, goes back to ok; held journey emails go out at their next look ' +
          '(REPUTATION_RECHECK_SECONDS) and broadcasts the breaker paused resume. The counts so far are set aside for one window.',
        body: resumeBody.optional(),
        response: { 200: resumed, ...bearerErrors },
      },
    },
    async (request) => {
      const body = request.body;
      const only = body !== undefined && 'group' in body ? { group: body.group, provider: body.provider } : undefined;
      const transitions = await resumeBreakers(alertingBreaker(deps.reputation), new Date(), only);
      const broadcasts = await resumeReputationPausedBroadcasts({ db: deps.db, jobs: deps.temporal.jobs });
      const answer = {
        resumed: transitions.map((transition) => ({ group: transition.group, provider: transition.provider, from: transition.from as 'slowed' | 'paused' })),
        broadcasts,
      };
      request.auditRecord = { resourceId: only === undefined ? null : `${only.group}/${only.provider}`, detail: answer };
      return answer;
    },
  );
};
