/**
 * npm run bench:sources — webhook-source ingest throughput as a ratio to POST /v1/events, in one
 * run on one machine (docs/sources.md). The same fact (a paid invoice for one of 1,000 users,
 * triggering no journey, with a fresh idempotency key) arrives (a) as POST /v1/events with a
 * bearer key and (b) as a signed provider webhook, once per signature scheme: Stripe's
 * `t=…,v1=…`, Clerk's standard-webhooks (Svix) and Segment's HMAC-SHA1. Goal: every ratio
 * ≥ 0.9, i.e. verification and transformation are not the bottleneck.
 *
 * Each request is signed as it is sent, with node:crypto (cheap on the client, which shares the
 * two cores with the server). Rows go to bench/results/webhook-sources.json (the bench result
 * convention); the last line is `webhook sources ratio stripe=<x> clerk=<y> segment=<z>`.
 */
import { createHmac } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createApiKey } from '@waymark/core/auth/api-keys';
import { autocannon, CONNECTIONS, startBenchServer, type AutocannonResult } from './lib/bench-server';

const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_sources';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SECONDS = Number(process.env.BENCH_SOURCES_SECONDS ?? 3);
const GOAL = 0.9;

const STRIPE_SECRET = 'whsec_bench_stripe_signing_secret';
const CLERK_KEY = Buffer.from('bench-clerk-signing-key-32-bytes');
const CLERK_SECRET = `whsec_${CLERK_KEY.toString('base64')}`;
const SEGMENT_SECRET = 'bench-segment-shared-secret';

interface Signed {
  body: string;
  headers: Record<string, string>;
}

const run = `${Date.now()}`;
const userOf = (n: number) => `bench-${run}-${n % 1000}`;
const now = () => Math.floor(Date.now() / 1000);
const invoice = { amount_paid: 2900, currency: 'usd', status: 'paid', billing_reason: 'subscription_cycle' };

/** One fact per request, in each wire format. */
const formats: Record<'events' | 'stripe' | 'clerk' | 'segment', (n: number) => Signed> = {
  events: (n) => ({
    body: JSON.stringify({ name: 'invoice.paid', userId: userOf(n), eventProperties: invoice, idempotencyKey: `events-${run}-${n}` }),
    headers: {},
  }),
  stripe: (n) => {
    const body = JSON.stringify({
      id: `evt_${run}_${n}`,
      object: 'event',
      type: 'invoice.paid',
      livemode: false,
      data: { object: { id: `in_${n}`, object: 'invoice', customer: 'cus_bench', metadata: { userId: userOf(n) }, ...invoice } },
    });
    const t = now();
    return { body, headers: { 'stripe-signature': `t=${t},v1=${createHmac('sha256', STRIPE_SECRET).update(`${t}.${body}`).digest('hex')}` } };
  },
  clerk: (n) => {
    const body = JSON.stringify({
      type: 'session.created',
      object: 'event',
      data: { id: `sess_${n}`, object: 'session', user_id: userOf(n), status: 'active' },
    });
    const id = `msg_${run}_${n}`;
    const t = now();
    const signature = createHmac('sha256', CLERK_KEY).update(`${id}.${t}.${body}`).digest('base64');
    return { body, headers: { 'svix-id': id, 'svix-timestamp': String(t), 'svix-signature': `v1,${signature}` } };
  },
  segment: (n) => {
    const body = JSON.stringify({ type: 'track', messageId: `seg-${run}-${n}`, userId: userOf(n), event: 'invoice.paid', properties: invoice });
    return { body, headers: { 'x-signature': createHmac('sha1', SEGMENT_SECRET).update(body).digest('hex') } };
  },
};

async function main(): Promise<void> {
  const taskQueue = `waymark-bench-sources-${process.pid}`;
  const { url, app, deps } = await startBenchServer(databaseUrl, {
    TEMPORAL_TASK_QUEUE: taskQueue,
    STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
    CLERK_WEBHOOK_SECRET: CLERK_SECRET,
    SEGMENT_WEBHOOK_SECRET: SEGMENT_SECRET,
    // the per-source and per-address budgets (3,000 a minute each by default) are what a provider
    // meets; this bench measures verification and ingest, so its own run must not reach them
    WEBHOOK_SOURCE_RATE_LIMIT_MAX: '100000000',
    WEBHOOK_ADDRESS_RATE_LIMIT_MAX: '100000000',
  });
  const { key } = await createApiKey(deps.db, { name: `bench-sources-${Date.now()}`, scopes: ['ingest'], expiresAt: null });

  // a scenario keeps its numbering across its runs: every request is a new event
  const scenario = (label: keyof typeof formats) => {
    const path = label === 'events' ? '/v1/events' : `/v1/webhooks/${label}`;
    const auth = label === 'events' ? { authorization: `Bearer ${key}` } : {};
    let n = 0;
    return async (duration: number): Promise<AutocannonResult> => {
      const result = await autocannon({
        url: `${url}${path}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        connections: CONNECTIONS,
        duration,
        requests: [
          {
            setupRequest: (request: { headers: Record<string, string> }) => {
              const signed = formats[label](n++);
              return { ...request, body: signed.body, headers: { ...request.headers, ...signed.headers } };
            },
          },
        ],
      });
      console.log(
        `${label.padEnd(8)} ${result.requests.average.toFixed(0).padStart(6)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  non-2xx ${result.non2xx}  errors ${result.errors}`,
      );
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${label}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
      return result;
    };
  };

  const events = scenario('events');
  const sources = { stripe: scenario('stripe'), clerk: scenario('clerk'), segment: scenario('segment') };

  // warm-up (pools, JIT, the key cache), then short alternating pairs, summed: the machine's speed
  // drifts over seconds, and alternating exposes both sides to the same drift
  await events(2);
  for (const source of Object.values(sources)) await source(1);
  // each source is compared with the events runs paired with it; the order inside a pair
  // alternates by round, so a machine speeding up or slowing down favours neither side
  const pairs = { stripe: { events: 0, source: 0 }, clerk: { events: 0, source: 0 }, segment: { events: 0, source: 0 } };
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const [name, source] of Object.entries(sources) as [keyof typeof sources, (seconds: number) => Promise<AutocannonResult>][]) {
      const first = round % 2 === 1 ? events : source;
      const second = first === events ? source : events;
      const a = (await first(SECONDS)).requests.average;
      const b = (await second(SECONDS)).requests.average;
      pairs[name].events += first === events ? a : b;
      pairs[name].source += first === events ? b : a;
    }
  }
  // requests autocannon abandoned at its deadline are still being handled: let them finish
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await app.close();
  await deps.close();

  const schemes = { stripe: 'timestamped t=,v1=', clerk: 'standard-webhooks', segment: 'HMAC-SHA1 hex' } as const;
  const rows = (Object.keys(pairs) as (keyof typeof pairs)[]).map((name) => {
    const { events: baseline, source: value } = pairs[name];
    const ratio = Math.round((value / baseline) * 1000) / 1000;
    return {
      name: `webhook source ${name} (${schemes[name]}) vs POST /v1/events`,
      unit: 'req/s',
      value: Math.round((value / ROUNDS) * 10) / 10,
      baseline: Math.round((baseline / ROUNDS) * 10) / 10,
      ratio,
      goal: GOAL,
      pass: ratio >= GOAL,
    };
  });
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/webhook-sources.json', import.meta.url), `${JSON.stringify(rows, null, 2)}\n`);
  console.table(rows);
  console.log(`webhook sources ratio ${rows.map((row) => `${row.name.split(' ')[2]}=${row.ratio.toFixed(2)}`).join(' ')}`);
}

main().catch((error: unknown) => {
  console.error('bench:sources failed:', error);
  process.exit(1);
});
