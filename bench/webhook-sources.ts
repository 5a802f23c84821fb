/**
 * npm run bench:sources — webhook-source ingest throughput as a ratio to POST /v1/events, in one
 * run on one machine (docs/sources.md). The same fact (a paid invoice, a new session, a tracked
 * purchase for one of 1,000 users, with a fresh delivery id) arrives (a) as a signed provider
 * webhook, once per signature scheme: Stripe's `t=…,v1=…`, Clerk's standard-webhooks (Svix) and
 * Segment's HMAC-SHA1, and (b) as POST /v1/events with a bearer key, carrying the event that
 * source's own transform makes of the same delivery. So both sides do the same work after the
 * request is accepted (a Stripe `invoice.paid` passes `trial-ending`'s exit rule, and so takes the
 * person's exit lock, on both), and the ratio is what verification and transformation cost.
 * Goal: every ratio ≥ 0.9, i.e. verification and transformation are not the bottleneck.
 *
 * Each request is signed as it is sent, with node:crypto (cheap on the client, which shares the
 * two cores with the server). Rows go to bench/results/webhook-sources.json (the bench result
 * convention); the last line is `webhook sources ratio stripe=<x> clerk=<y> segment=<z>`.
 */
import { createHmac } from 'node:crypto';
import { createApiKey } from '@waymark/core/auth/api-keys';
import { webhookIngestInput } from '@waymark/core/webhooks/sources/receive-webhook';
import { builtInSources } from '@waymark/sources';
import { autocannon, CONNECTIONS, startBenchServer, type AutocannonResult } from './lib/bench-server';
import { ratioRow, writeBenchResults } from './lib/results';

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

type SourceName = 'stripe' | 'clerk' | 'segment';

/** One fact per request, in each provider's wire format. */
const formats: Record<SourceName, (n: number) => Signed> = {
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

/**
 * The same delivery as POST /v1/events takes it: the source's own schema and transform make the
 * event and `webhookIngestInput` turns it into what the pipeline receives (the production rules,
 * not copies); the body carries it under a key of its own. This costs the load generator, which
 * shares the api's event loop, ~12 µs more per request than signing does (about 1 % of a request).
 */
function asEventsRequest(name: SourceName, signed: Signed): Signed {
  const source = builtInSources.find((candidate) => candidate.id === name);
  if (source === undefined) throw new Error(`no built-in source ${name}`);
  const raw: unknown = JSON.parse(signed.body);
  const event = source.transform(source.schema === undefined ? raw : source.schema.parse(raw), signed.headers);
  if (event === null || event === undefined) throw new Error(`${name}: the bench's delivery makes no event`);
  const { source: _webhook, idempotencyKey, ...input } = webhookIngestInput(name, event, event.userEmail);
  if (idempotencyKey === undefined) throw new Error(`${name}: the bench's delivery has no delivery id`);
  return { body: JSON.stringify({ ...input, idempotencyKey: `events-${idempotencyKey}` }), headers: {} };
}

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

  // a scenario keeps its numbering across its runs: every request is a new event; `events` posts
  // the event its source makes of the same deliveries
  const scenario = (name: SourceName, side: 'events' | 'source') => {
    const path = side === 'events' ? '/v1/events' : `/v1/webhooks/${name}`;
    const auth = side === 'events' ? { authorization: `Bearer ${key}` } : {};
    const request = side === 'events' ? (n: number) => asEventsRequest(name, formats[name](n)) : formats[name];
    const label = side === 'events' ? `events (${name})` : name;
    let n = 0;
    return async (duration: number): Promise<number> => {
      const result: AutocannonResult = await autocannon({
        url: `${url}${path}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        connections: CONNECTIONS,
        duration,
        requests: [
          {
            setupRequest: (base: { headers: Record<string, string> }) => {
              const signed = request(n++);
              return { ...base, body: signed.body, headers: { ...base.headers, ...signed.headers } };
            },
          },
        ],
      });
      console.log(
        `${label.padEnd(17)} ${result.requests.average.toFixed(0).padStart(6)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  non-2xx ${result.non2xx}  errors ${result.errors}`,
      );
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${label}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
      return result.requests.average;
    };
  };

  const names = Object.keys(formats) as SourceName[];
  const sides = Object.fromEntries(names.map((name) => [name, { events: scenario(name, 'events'), source: scenario(name, 'source') }])) as Record<
    SourceName,
    Record<'events' | 'source', (seconds: number) => Promise<number>>
  >;

  // warm-up (pools, JIT, the key cache), then short alternating pairs, summed: the machine's speed
  // drifts over seconds, and alternating exposes both sides to the same drift
  for (const name of names) {
    await sides[name].events(1);
    await sides[name].source(1);
  }
  // the order inside a pair alternates by round, so a machine speeding up or slowing down favours
  // neither side
  const sums = Object.fromEntries(names.map((name) => [name, { events: 0, source: 0 }])) as Record<SourceName, { events: number; source: number }>;
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const name of names) {
      const order = round % 2 === 1 ? (['events', 'source'] as const) : (['source', 'events'] as const);
      for (const side of order) sums[name][side] += await sides[name][side](SECONDS);
    }
  }
  // requests autocannon abandoned at its deadline are still being handled: let them finish
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await app.close();
  await deps.close();

  const schemes: Record<SourceName, string> = { stripe: 'timestamped t=,v1=', clerk: 'standard-webhooks', segment: 'HMAC-SHA1 hex' };
  const rows = names.map((name) =>
    ratioRow(
      `webhook source ${name} (${schemes[name]}) vs POST /v1/events of the same event`,
      'req/s',
      sums[name].source / ROUNDS,
      sums[name].events / ROUNDS,
      GOAL,
    ),
  );
  writeBenchResults('webhook-sources', rows);
  console.log(`webhook sources ratio ${names.map((name, index) => `${name}=${rows[index]!.ratio.toFixed(2)}`).join(' ')}`);
}

main().catch((error: unknown) => {
  console.error('bench:sources failed:', error);
  process.exit(1);
});
