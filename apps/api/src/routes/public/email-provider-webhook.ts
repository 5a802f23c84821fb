import { z } from 'zod';
import { confirmSnsSubscription } from '@waymark/core/webhooks/email-provider/confirm-subscription';
import { processSesNotification } from '@waymark/core/webhooks/email-provider/process-notification';
import { SIGNING_CERTIFICATE_UNAVAILABLE, verifyEmailProviderWebhook } from '@waymark/core/webhooks/email-provider/verify-webhook';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import { routeBudget } from '../../plugins/rate-limit';
import { errorBody } from '../../schemas/common';

/** what a 503 for a certificate that could not be downloaded asks SNS to wait */
const CERTIFICATE_RETRY_AFTER_SECONDS = 5;

/**
 * POST /v1/webhooks/email-provider: SES notifications delivered by Amazon SNS.
 * Subscribe `https://sns:<EMAIL_PROVIDER_WEBHOOK_SECRET>@<host>/v1/webhooks/email-provider`
 * (docs/email.md). SNS posts JSON as text/plain, which Fastify hands over as a string.
 */
export const emailProviderWebhookRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  // Bounces and complaints must always arrive (docs/email.md, "Provider webhooks"): SNS posts from a
  // handful of addresses and drops a message answered 4xx, so this route has no per-address budget;
  // its own, per topic, is spent once the message is authenticated and sheds load with a 503,
  // which SNS retries with backoff
  const topics = new WeakMap<object, string>();
  const budget = routeBudget(app, { name: 'email-provider', max: deps.config.rateLimit.emailProviderMax, key: (request) => topics.get(request) ?? '' });
  app.post(
    '/v1/webhooks/email-provider',
    {
      config: { rateLimit: false },
      schema: {
        tags: ['webhooks'],
        summary: 'Amazon SES delivery notifications via SNS (Basic auth + SNS signature)',
        body: z.unknown(),
        description:
          'Basic auth and the SNS signature are checked first (401). A signing certificate that cannot be downloaded is a 503 with ' +
          'Retry-After (SNS retries it; a 4xx would drop the message). Verified messages then spend the route’s own budget, per SNS topic ' +
          '(EMAIL_PROVIDER_WEBHOOK_RATE_LIMIT_MAX a window); past it the answer is 503 with Retry-After, which SNS retries, never 429.',
        response: { 200: z.object({ ok: z.literal(true) }), 401: errorBody, 503: errorBody },
      },
    },
    async (request, reply) => {
      const verification = await verifyEmailProviderWebhook(
        { authorization: request.headers.authorization, body: request.body },
        {
          secret: deps.config.email.webhookSecret,
          certificates: deps.snsCertificates,
          trust: { topicArns: deps.config.email.snsTopicArns, devCertificateUrl: deps.config.email.snsDevCertificateUrl },
        },
      );
      if (!verification.ok && verification.error === SIGNING_CERTIFICATE_UNAVAILABLE) {
        // SNS drops a message answered 4xx: a certificate it could not fetch is ours to retry
        request.log.warn({ reason: verification.reason }, 'email-provider webhook: signing certificate unavailable; answered 503 so SNS retries');
        return reply.status(503).header('retry-after', CERTIFICATE_RETRY_AFTER_SECONDS).send({ error: verification.error });
      }
      if (!verification.ok) {
        request.log.warn({ reason: verification.reason }, 'email-provider webhook rejected');
        return reply.status(401).send({ error: verification.error });
      }
      const { message } = verification;
      topics.set(request, message.TopicArn);
      const spent = await budget.spend(request);
      if (!spent.within) return reply.status(503).header('retry-after', spent.retryAfterSeconds).send({ error: 'Too many notifications; retry later' });
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
          const outcome = await processSesNotification(deps.db, message, {
            bounceThreshold: deps.config.email.bounceThreshold,
            isRequired: (category) => deps.categories.find(category)?.required === true,
          });
          // after the notification's own transaction: the breaker's judgement never undoes its record
          await deps.reputationWatch.noticed(outcome, new Date());
          if (outcome.kind === 'unparsed') request.log.warn({ messageId: message.MessageId }, 'SNS notification is not an SES event; ignored');
          break;
        }
      }
      return { ok: true as const };
    },
  );
};
