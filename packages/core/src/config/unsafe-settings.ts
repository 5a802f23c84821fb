import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import type { EncryptionKey } from './encryption-keys';
import { isLoopbackHost, urlHost } from './local-host';
import type { TrustProxy } from './trust-proxy';

/**
 * AUTH_SECRET values published in this repository or its docs, or typical of a template: anyone
 * could sign unsubscribe and resubscribe tokens for any address with them.
 */
const PLACEHOLDER_AUTH_SECRETS = new Set(['change-me-to-a-long-random-secret', 'changeme', 'change-me', 'change_me', 'secret', 'your-secret', 'replace-me']);

/** AUTH_SECRET is at least this many bytes in production (32 random bytes: `openssl rand -hex 32`). */
export const MIN_AUTH_SECRET_BYTES = 32;
/** ADMIN_API_KEY, a full-admin key no one can revoke but by a restart, is at least this long. */
export const MIN_ADMIN_API_KEY_LENGTH = 32;
/**
 * EMAIL_PROVIDER_WEBHOOK_SECRET, the SNS subscription's password, is at least this long: it is all
 * that stands between anyone's own signed SNS topic and a forged bounce when SES_SNS_TOPIC_ARNS is unset.
 */
export const MIN_EMAIL_WEBHOOK_SECRET_LENGTH = 16;
/**
 * The SHA-256 fingerprint of the SNS signing certificate published in this repository for tests
 * (test/fixtures/sns-test-cert.pem): its private key is published beside it, so pinned with
 * EMAIL_PROVIDER_SNS_CERTIFICATE it lets anyone sign SES notifications.
 */
const PUBLISHED_SNS_CERTIFICATE = '87:78:B7:DA:27:57:69:D2:B1:EC:39:1C:BB:77:01:86:E0:79:F4:59:1A:E6:28:9B:E2:4A:BA:F2:68:60:74:9F';

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
  /** ADMIN_API_KEY (undefined when unset or where a process does not read it) */
  adminApiKey?: string | undefined;
  /** the URLs people's links and sign-in pages are built on, by variable: API_PUBLIC_URL, AUTH_URL */
  publicUrls?: Readonly<Record<string, string>>;
  /** EMAIL_PROVIDER_SNS_CERTIFICATE (PEM), when a certificate is pinned */
  snsCertificatePem?: string | undefined;
  /** how the process reaches Temporal */
  temporal?: { address: string; tls: boolean; hasClientToken: boolean };
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
  if (settings.trustProxy === true || (Array.isArray(settings.trustProxy) && settings.trustProxy.some(isEveryAddress))) {
    problems.push(
      `TRUST_PROXY=${settings.trustProxy === true ? 'true' : (settings.trustProxy as string[]).join(',')} trusts every X-Forwarded-For hop, so a client chooses the address every per-address limit counts; ` +
        'set the number of proxies in front (e.g. TRUST_PROXY=1) or their addresses/CIDRs',
    );
  }
  if (settings.emailWebhookSecret === undefined) {
    problems.push(
      'EMAIL_PROVIDER_WEBHOOK_SECRET is unset, so SES bounce and complaint notifications are refused and nobody is suppressed; ' +
        'set it and subscribe https://sns:<secret>@<host>/v1/webhooks/email-provider',
    );
  } else if (typeof settings.emailWebhookSecret === 'string' && settings.emailWebhookSecret.length < MIN_EMAIL_WEBHOOK_SECRET_LENGTH) {
    problems.push(
      `EMAIL_PROVIDER_WEBHOOK_SECRET is shorter than ${MIN_EMAIL_WEBHOOK_SECRET_LENGTH} characters, so it can be guessed and bounces and complaints forged; ` +
        'set a random one (openssl rand -hex 16) and subscribe https://sns:<secret>@<host>/v1/webhooks/email-provider again',
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
  if (settings.adminApiKey !== undefined && settings.adminApiKey.length < MIN_ADMIN_API_KEY_LENGTH) {
    problems.push(
      `ADMIN_API_KEY is shorter than ${MIN_ADMIN_API_KEY_LENGTH} characters: it is a full-admin key that can be guessed and only a restart revokes; ` +
        'unset it and use scoped keys (waymark keys create), or set 32 random bytes (openssl rand -hex 32)',
    );
  }
  for (const [variable, url] of Object.entries(settings.publicUrls ?? {})) {
    if (isPlainHttpElsewhere(url)) {
      problems.push(
        `${variable} is ${url}: sign-in, password-reset, invitation, unsubscribe and tracking links would travel in clear (and production's Secure cookies would never come back); ` +
          'serve it over https',
      );
    }
  }
  if (settings.snsCertificatePem !== undefined && certificateFingerprint(settings.snsCertificatePem) === PUBLISHED_SNS_CERTIFICATE) {
    problems.push(
      "EMAIL_PROVIDER_SNS_CERTIFICATE is this repository's test certificate, whose private key is published: anyone could sign bounces and complaints; " +
        "unset it (Amazon's certificates are used) or pin your own",
    );
  }
  const temporal = settings.temporal;
  if (temporal !== undefined && temporal.hasClientToken && !temporal.tls && !isLoopbackHost(hostOf(temporal.address))) {
    problems.push(
      `ORCHESTRATOR_CLIENT_TOKEN would be sent in clear to ${temporal.address} (TEMPORAL_TLS=false): anyone on the way could take over the namespace; ` +
        'unset TEMPORAL_TLS (a token turns TLS on)',
    );
  }
  return problems;
}

/** A CIDR covering every address (0.0.0.0/0, ::/0): proxy-addr then trusts every hop, as with `true`. */
function isEveryAddress(entry: string): boolean {
  const [address = '', prefix] = entry.split('/');
  return isIP(address) !== 0 && prefix !== undefined && Number(prefix) === 0;
}

function hostOf(address: string): string {
  // host:port, [v6]:port or a bare host
  const bracketed = /^\[([^\]]+)\]/.exec(address);
  if (bracketed !== null) return bracketed[1]!;
  return address.split(':').length === 2 ? address.split(':')[0]! : address;
}

/** http:// to anything but this machine (a local trial, the compose file's default, a test) */
function isPlainHttpElsewhere(value: string): boolean {
  const host = urlHost(value);
  return /^http:\/\//i.test(value) && host !== undefined && !isLoopbackHost(host);
}

function certificateFingerprint(pem: string): string | undefined {
  try {
    return new X509Certificate(pem).fingerprint256;
  } catch {
    // a malformed certificate is the SNS check's to refuse (sns-message.ts)
    return undefined;
  }
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
