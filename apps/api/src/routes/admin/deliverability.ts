import { breakerReport } from '@waymark/core/deliverability/breaker';
import { warmupReport } from '@waymark/core/deliverability/warmup';
import { asMailboxProvider } from '@waymark/core/delivery/mailbox-provider';
import { createDoctorDeps, runDoctor } from '@waymark/core/doctor/doctor';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import { bearerErrors } from '../../schemas/common';
import { deliverabilitySchema } from '../../schemas/deliverability';

const HOUR_MS = 3_600_000;

/** The deliverability doctor over HTTP (docs/email.md, "Deliverability"): what `waymark doctor` prints. */
export const deliverabilityRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  const settings = deps.config.deliverability;
  // the settings the breaker judges with (REPUTATION_* of the loaded config and the delivery policy's thresholds)
  const { cooldownMs, windowHours, minSends, thresholds } = deps.reputation.settings;
  const doctor = createDoctorDeps(settings, { db: deps.db, categories: deps.categories });
  app.get(
    '/v1/admin/deliverability',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['emails'],
        summary: "The deliverability doctor's checks and the reputation breaker",
        description:
          "Reads EMAIL_FROM's SPF, DKIM and DMARC (through DNS_RESOLVER), the SES account (GetAccount, ListRecommendations, GetEmailIdentity), what Waymark sends, and the last 24 h's bounce and complaint rates per category group and mailbox provider; each check is pass, warn or fail with its fix; then the reputation breaker's state per category group and mailbox provider with its settings in force (cooldown, window, minimum sends, thresholds), and the warm-up ramp's days with today's use. A source that cannot be read is a warning, never an error of the request.",
        response: { 200: deliverabilitySchema, ...bearerErrors },
      },
    },
    async () => {
      const now = new Date();
      const [checks, breaker, warmup] = await Promise.all([
        runDoctor(doctor, settings),
        breakerReport(deps.reputation, now),
        warmupReport(deps.db, deps.email.delivery.policy, now),
      ]);
      return {
        checks,
        breaker: breaker.map((row) => ({ ...row, provider: asMailboxProvider(row.provider) })),
        breakerSettings: { cooldownHours: cooldownMs / HOUR_MS, windowHours, minSends, thresholds },
        warmup: warmup ?? null,
      };
    },
  );
};
