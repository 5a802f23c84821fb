import { isLoopbackHost, urlHost } from './local-host';

/** What the cautions read of the environment. */
export interface CautionedSettings {
  NODE_ENV: 'development' | 'production' | 'test';
  API_PUBLIC_URL: string;
  DATABASE_URL: string;
  CACHE_URL: string | undefined;
  SES_ENDPOINT: string | undefined;
  WEBHOOK_ALLOW_PRIVATE_TARGETS: boolean;
  ALERT_ALLOW_PRIVATE_TARGETS: boolean;
}

/**
 * A public https address with NODE_ENV left at `development` (its default): a deployment started
 * outside the image, which then runs without production's refusals, with cookies not marked
 * Secure and the API reference served.
 */
function servedWithoutProduction(env: CautionedSettings): string[] {
  const host = urlHost(env.API_PUBLIC_URL);
  if (env.NODE_ENV !== 'development' || !env.API_PUBLIC_URL.startsWith('https://') || host === undefined || isLoopbackHost(host)) return [];
  return [
    `NODE_ENV is development while API_PUBLIC_URL is ${env.API_PUBLIC_URL}: a deployment without NODE_ENV=production skips its refusals of unsafe settings, and its session cookies are not Secure; set NODE_ENV=production`,
  ];
}

/**
 * Production settings that are right on some deployments (a private network, a compose trial) and
 * wrong on most, so they are logged at every start rather than refused (docs/deploy.md,
 * "Production checklist"; the refusals are unsafe-settings.ts). Outside production, only a
 * deployment that looks public without NODE_ENV=production is named.
 */
export function productionCautions(env: CautionedSettings): string[] {
  if (env.NODE_ENV !== 'production') return servedWithoutProduction(env);
  const cautions: string[] = [];
  if (env.SES_ENDPOINT !== undefined) {
    cautions.push(
      `SES_ENDPOINT=${env.SES_ENDPOINT}: every email goes to that host, not to Amazon SES, and is recorded as sent (an emulator?); unset it to send for real`,
    );
  }
  const database = urlHost(env.DATABASE_URL);
  if (database !== undefined && !isLoopbackHost(database) && !/[?&]sslmode=(require|verify-ca|verify-full)\b/.test(env.DATABASE_URL)) {
    cautions.push(`DATABASE_URL reaches ${database} without sslmode=require (or verify-full): contacts, keys and sessions cross the network in clear`);
  }
  const cache = env.CACHE_URL === undefined ? undefined : urlHost(env.CACHE_URL);
  if (cache !== undefined && env.CACHE_URL?.startsWith('redis://') === true && !isLoopbackHost(cache)) {
    cautions.push(`CACHE_URL reaches ${cache} over redis:// (no TLS): sessions and rate-limit keys cross the network in clear; use rediss://`);
  }
  for (const [variable, allowed] of [
    ['WEBHOOK_ALLOW_PRIVATE_TARGETS', env.WEBHOOK_ALLOW_PRIVATE_TARGETS],
    ['ALERT_ALLOW_PRIVATE_TARGETS', env.ALERT_ALLOW_PRIVATE_TARGETS],
  ] as const) {
    if (allowed)
      cautions.push(`${variable}=true: an admin's URL can reach private and loopback addresses of this network (link-local and cloud metadata stay refused)`);
  }
  return cautions;
}
