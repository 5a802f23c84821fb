import { z } from 'zod';
import { confirmSnsSubscription } from '@waymark/core/webhooks/email-provider/confirm-subscription';
import { processSesNotification } from '@waymark/core/webhooks/email-provider/process-notification';
import { verifyEmailProviderWebhook } from '@waymark/core/webhooks/email-provider/verify-webhook';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import { errorBody } from '../../schemas/common';

/**
 * POST /v1/webhooks/email-provider: SES notifications delivered by Amazon SNS.
 * Subscribe `https://sns:<EMAIL_PROVIDER_WEBHOOK_SECRET>@<host>/v1/webhooks/email-provider`
 * (docs/email.md). SNS posts JSON as text/plain, which Fastify hands over as a string.
 */
export const emailProviderWebhookRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/v1/webhooks/email-provider',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Amazon SES delivery notifications via SNS (Basic auth + SNS signature)',
        body: z.unknown(),
        response: { 200: z.object({ ok: z.literal(true) }), 401: errorBody },
      },
    },
    async (request, reply) => {
      const verification = await verifyEmailProviderWebhook(
        { authorization: request.headers.authorization, body: request.body },
        { secret: deps.config.email.webhookSecret, certificates: deps.snsCertificates, trust: { topicArns: deps.config.email.snsTopicArns } },
      );
      if (!verification.ok) {
        request.log.warn({ reason: verification.reason }, 'email-provider webhook rejected');
        return reply.status(401).send({ error: verification.error });
      }
      const { message } = verification;
      switch (message.Type) {
        case 'SubscriptionConfirmation': {
          const confirmed = await confirmSnsSubscription(message);
          if (confirmed) request.log.info({ topicArn: message.TopicArn }, 'SNS subscription confirmed');
          else
            request.log.warn(
              { topicArn: message.TopicArn },
              'SNS subscription could not be confirmed (SubscribeURL unreachable); confirm it in the AWS console',
            );
          break;
        }
        case 'UnsubscribeConfirmation':
          request.log.warn({ topicArn: message.TopicArn }, 'SNS subscription removed');
          break;
        case 'Notification': {
          const outcome = await processSesNotification(deps.db, message, { bounceThreshold: deps.config.email.bounceThreshold });
          if (outcome.kind === 'unparsed') request.log.warn({ messageId: message.MessageId }, 'SNS notification is not an SES event; ignored');
          break;
        }
      }
      return { ok: true as const };
    },
  );
};
