import type { EncryptionKey } from './encryption-keys';
import type { TrustProxy } from './trust-proxy';

/**
 * AUTH_SECRET values published in this repository or its docs, or typical of a template: anyone
 * could sign unsubscribe and resubscribe tokens for any address with them.
 */
const PLACEHOLDER_AUTH_SECRETS = new Set(['change-me-to-a-long-random-secret', 'changeme', 'change-me', 'change_me', 'secret', 'your-secret', 'replace-me']);

/** AUTH_SECRET is at least this many bytes in production (32 random bytes: `openssl rand -hex 32`). */
export const MIN_AUTH_SECRET_BYTES = 32;

/** A webhook source that authenticates by comparing a shared secret (`match`), as the check sees it. */
export interface MatchSourceSetting {
  id: string;
  /** the variable that holds its secret, e.g. ANALYTICS_WEBHOOK_SECRET */
  secretVariable: string;
}

/** What the start-up check reads; every process builds it from its Config (or the CLI's environment). */
export interface SettingsUnderCheck {
  /** undefined where a process does not read it (the CLI) */
  authSecret: string | undefined;
  trustProxy: TrustProxy;
  /** undefined when unset; null where a process does not read it (the CLI) */
  emailWebhookSecret: string | undefined | null;
  /** ENCRYPTION_KEYS; undefined when unset; null where a process starts no run (the CLI) */
  encryptionKeys: readonly EncryptionKey[] | undefined | null;
  /** match sources served with no secret because their `*_WEBHOOK_OPEN=true` says so */
  openSources: readonly MatchSourceSetting[];
}

/**
 * Settings that are unsafe on a server the internet can reach, one sentence each naming the
 * variable and the fix (docs/security.md, "Production checklist"). Production refuses to start
 * on any; development prints them and shows them on /v1/health as `warnings`.
 */
export function unsafeSettings(settings: SettingsUnderCheck): string[] {
  const problems: string[] = [];
  for (const source of settings.openSources) {
    problems.push(
      `webhook source "${source.id}" is open: ${source.secretVariable} is unset and ${openVariable(source.secretVariable)}=true, ` +
        'so anyone can post events to it; set the secret',
    );
  }
  const secret = settings.authSecret;
  if (secret !== undefined) {
    if (PLACEHOLDER_AUTH_SECRETS.has(secret.trim().toLowerCase())) {
      problems.push('AUTH_SECRET is a published placeholder; set 32 random bytes (openssl rand -hex 32)');
    } else if (Buffer.byteLength(secret, 'utf8') < MIN_AUTH_SECRET_BYTES) {
      problems.push(`AUTH_SECRET is shorter than ${MIN_AUTH_SECRET_BYTES} bytes; set 32 random bytes (openssl rand -hex 32)`);
    }
  }
  if (settings.trustProxy === true) {
    problems.push(
      'TRUST_PROXY=true trusts every X-Forwarded-For hop, so a client chooses the address every per-address limit counts; ' +
        'set the number of proxies in front (e.g. TRUST_PROXY=1) or their addresses/CIDRs',
    );
  }
  if (settings.emailWebhookSecret === undefined) {
    problems.push(
      'EMAIL_PROVIDER_WEBHOOK_SECRET is unset, so SES bounce and complaint notifications are refused and nobody is suppressed; ' +
        'set it and subscribe https://sns:<secret>@<host>/v1/webhooks/email-provider',
    );
  }
  if (settings.encryptionKeys === undefined) {
    problems.push(
      "ENCRYPTION_KEYS is unset, so Temporal's history (and its Web UI) holds every run's input and email data in clear, " +
        'secret props such as sign-in links included, and webhook signing secrets are stored in clear; ' +
        'set <id>:<openssl rand -hex 32> on the api, the worker and the CLI',
    );
  }
  // every byte the same: a key typed by hand, as this repository's bench and chaos keys are; no
  // random key is (openssl rand -hex 32)
  for (const key of settings.encryptionKeys ?? []) {
    if (key.key.every((byte) => byte === key.key[0])) {
      problems.push(`ENCRYPTION_KEYS key "${key.id}" is one byte repeated, not a random key; set <id>:<openssl rand -hex 32>`);
    }
  }
  return problems;
}

/** The variable that opens a match source without a secret: `ANALYTICS_WEBHOOK_SECRET` → `ANALYTICS_WEBHOOK_OPEN`. */
export function openVariable(secretVariable: string): string {
  return secretVariable.replace(/_SECRET$/, '_OPEN');
}

/** The message a production process exits with: every problem at once. */
export function unsafeSettingsMessage(problems: readonly string[]): string {
  return `Unsafe settings for production (NODE_ENV=production refuses to start; docs/security.md, "Production checklist"):\n${problems
    .map((problem) => `  - ${problem}`)
    .join('\n')}`;
}
