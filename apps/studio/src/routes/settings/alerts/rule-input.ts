import type { components } from '../../../api/schema';

export type Rule = components['schemas']['AlertRule'];
export type AlertType = Rule['type'];
export type Channel = Rule['channel'];

/**
 * Every alert type with what its threshold means (docs/operations.md, Alerts). Typed against the
 * API's enum, so a type added there fails the studio's typecheck until it is described here.
 */
export const alertTypes = {
  bounce_rate_exceeded: { label: 'Bounce rate above', unit: 'ratio' },
  high_complaint_rate: { label: 'Complaint rate above', unit: 'ratio' },
  delivery_issue: { label: 'Delivery rate below', unit: 'ratio' },
  journey_failure_spike: { label: 'Journey failures in an hour above', unit: 'count' },
  webhook_endpoint_disabled: { label: 'Webhook endpoints disabled in an hour above', unit: 'count' },
} satisfies Record<AlertType, { label: string; unit: 'ratio' | 'count' }>;

export const channels = {
  webhook: 'Webhook (JSON POST)',
  chat: 'Chat (Slack-compatible incoming webhook)',
  email: 'Email',
} satisfies Record<Channel, string>;

/** The form's fields as typed; numbers stay text until checked. */
export interface RuleDraft {
  name: string;
  type: AlertType;
  threshold: string;
  channel: Channel;
  /** webhook url, chat webhookUrl, or email to */
  target: string;
  /** chat only, optional */
  chatChannel: string;
  cooldownMinutes: string;
  enabled: boolean;
}

export interface RuleBody {
  name: string;
  type: AlertType;
  threshold: number;
  channel: Channel;
  channelConfig: Record<string, string>;
  cooldownMinutes: number;
  enabled: boolean;
}

/** The API's bounds (POST /v1/admin/alerts/rules), checked before sending. */
const NAME_MAX = 200;
const COOLDOWN_MAX = 10_080;
const EMAIL = /^[^@\s]{1,64}@(?:[^.@\s]{1,63}\.)+[^.@\s]{1,63}$/;

export function draftOf(rule: Rule | undefined): RuleDraft {
  const config = (rule?.channelConfig ?? {}) as Record<string, unknown>;
  const text = (key: string) => (typeof config[key] === 'string' ? config[key] : '');
  return {
    name: rule?.name ?? '',
    type: rule?.type ?? 'bounce_rate_exceeded',
    threshold: rule === undefined ? '0.05' : String(rule.threshold),
    channel: rule?.channel ?? 'webhook',
    target: text(rule?.channel === 'chat' ? 'webhookUrl' : rule?.channel === 'email' ? 'to' : 'url'),
    chatChannel: text('channel'),
    cooldownMinutes: String(rule?.cooldownMinutes ?? 60),
    enabled: rule?.enabled ?? true,
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The request body, or the first problem with the draft in words the API would use. */
export function ruleBodyOf(draft: RuleDraft): { body: RuleBody } | { problem: string } {
  const name = draft.name.trim();
  if (name === '' || name.length > NAME_MAX) return { problem: `Name must be 1 to ${NAME_MAX} characters` };
  const threshold = draft.threshold.trim() === '' ? Number.NaN : Number(draft.threshold);
  const ratio = alertTypes[draft.type].unit === 'ratio';
  if (!Number.isFinite(threshold) || threshold < 0 || (ratio && threshold > 1)) {
    return { problem: ratio ? 'Threshold is a ratio between 0 and 1 (0.05 means 5%)' : 'Threshold is a count (0 or more)' };
  }
  const cooldownMinutes = Number(draft.cooldownMinutes);
  if (draft.cooldownMinutes.trim() === '' || !Number.isInteger(cooldownMinutes) || cooldownMinutes < 0 || cooldownMinutes > COOLDOWN_MAX) {
    return { problem: `Cooldown is a whole number of minutes from 0 to ${COOLDOWN_MAX} (a week)` };
  }
  const target = draft.target.trim();
  let channelConfig: Record<string, string>;
  if (draft.channel === 'email') {
    if (!EMAIL.test(target)) return { problem: 'Send to must be a valid email address' };
    channelConfig = { to: target };
  } else {
    if (!isHttpUrl(target)) return { problem: 'URL must be an http(s) URL' };
    channelConfig =
      draft.channel === 'webhook' ? { url: target } : { webhookUrl: target, ...(draft.chatChannel.trim() === '' ? {} : { channel: draft.chatChannel.trim() }) };
  }
  return { body: { name, type: draft.type, threshold, channel: draft.channel, channelConfig, cooldownMinutes, enabled: draft.enabled } };
}
