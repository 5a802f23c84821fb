import type { AlertRuleRow } from '../db/schema';
import type { SecretKeys } from '../tokens/sealed-secret';
import { channelConfigSchemas } from './alert-rules';
import { openChannelConfig } from './channel-secrets';
import { postJson, type OutboundOptions } from './outbound-http';

/** Sends the email channel's message through the service's SES transport. */
export type AlertMailer = (message: { to: string; ruleName: string; text: string; idempotencyKey: string }) => Promise<void>;

export interface AlertDeliveryDeps {
  outbound: OutboundOptions;
  mailer: AlertMailer;
  /** ENCRYPTION_KEYS: a chat or webhook rule's URL is kept sealed under them */
  keys: SecretKeys;
}

export interface AlertNotice {
  rule: Pick<AlertRuleRow, 'id' | 'name' | 'type' | 'threshold' | 'channel' | 'channelConfig'>;
  currentValue: number;
  sample: number;
  triggeredAt: Date;
}

function formatValue(type: string, value: number): string {
  return type === 'journey_failure_spike' || type === 'webhook_endpoint_disabled' ? String(value) : `${(value * 100).toFixed(2)}%`;
}

export function describeAlert(notice: AlertNotice): string {
  const { rule } = notice;
  const current = formatValue(rule.type, notice.currentValue);
  const threshold = formatValue(rule.type, rule.threshold);
  const basis =
    rule.type === 'journey_failure_spike'
      ? 'journey failures in the last hour'
      : rule.type === 'webhook_endpoint_disabled'
        ? 'webhook endpoints disabled in the last hour after failing for the retry window'
        : `over ${notice.sample} emails sent in the last hour`;
  const direction = rule.type === 'delivery_issue' ? 'below' : 'above';
  return `[Waymark] ${rule.name}: ${rule.type} is ${current} (${basis}), ${direction} the threshold of ${threshold}`;
}

/** Delivers one alert on the rule's channel (`text`: its words, else the rule's reading); throws when the channel did not accept it. */
export async function deliverAlert(deps: AlertDeliveryDeps, notice: AlertNotice, text = describeAlert(notice)): Promise<void> {
  switch (notice.rule.channel) {
    case 'webhook': {
      const config = channelConfigSchemas.webhook.parse(openChannelConfig(deps.keys, 'webhook', notice.rule.channelConfig));
      await postJson(
        config.url,
        {
          alert: {
            ruleId: notice.rule.id,
            ruleName: notice.rule.name,
            type: notice.rule.type,
            currentValue: notice.currentValue,
            threshold: notice.rule.threshold,
            triggeredAt: notice.triggeredAt.toISOString(),
          },
          text,
        },
        deps.outbound,
      );
      return;
    }
    case 'chat': {
      // Slack incoming-webhook payload; Mattermost, Rocket.Chat and Discord's /slack endpoint accept it
      const config = channelConfigSchemas.chat.parse(openChannelConfig(deps.keys, 'chat', notice.rule.channelConfig));
      await postJson(config.webhookUrl, { text, ...(config.channel === undefined ? {} : { channel: config.channel }) }, deps.outbound);
      return;
    }
    case 'email': {
      const config = channelConfigSchemas.email.parse(notice.rule.channelConfig);
      // one email per rule, firing and address, however often the evaluation is retried
      const idempotencyKey = `alert:${notice.rule.id}:${notice.triggeredAt.toISOString()}:${config.to}`;
      await deps.mailer({ to: config.to, ruleName: notice.rule.name, text, idempotencyKey });
      return;
    }
  }
}
