/**
 * Session auth benchmark (issue 12, docs/auth.md). Two measurements, one run:
 *  1. An admin GET (`/v1/admin/api-keys?limit=10`) authenticated by a session cookie against the
 *     same GET with a full-admin bearer key, in alternating short rounds with autocannon. Target:
 *     the session costs ≤ 1.2× the key (ratio = key req/s ÷ session req/s).
 *  2. Sign-in latency (argon2id at OWASP parameters), p50 of sequential sign-ins. Target: < 300 ms.
 * Writes bench/results/session-auth.json (the bench result convention) and prints the rows.
 * Run: `npm run bench:sessions` (BENCH_DATABASE_URL, default database `waymark_bench_sessions`,
 * recreated every run; BENCH_ROUNDS, BENCH_SESSION_SECONDS, BENCH_SIGN_INS tune it).
 */
import { createApiKey } from '@waymark/core/auth/api-keys';
import { createAdmin } from '@waymark/core/organizations/admin-accounts';
import { autocannon, CONNECTIONS, startBenchServer, type AutocannonResult } from './lib/bench-server';
import { limitRow, ratioRow, writeBenchResults } from './lib/results';

const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_sessions';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SECONDS = Number(process.env.BENCH_SESSION_SECONDS ?? 3);
const SIGN_INS = Number(process.env.BENCH_SIGN_INS ?? 30);
const PATH = '/v1/admin/api-keys?limit=10';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const server = await startBenchServer(databaseUrl, { TRUST_PROXY: 'true' });
  try {
    const email = 'bench-admin@example.com';
    const password = 'bench admin password';
    await createAdmin(server.deps.db, { email, password });
    const key = await createApiKey(server.deps.db, { name: 'bench', scopes: ['full-admin'] });

    let address = 0;
    const signIn = async (): Promise<{ ms: number; cookie: string }> => {
      address += 1;
      const started = performance.now();
      const response = await fetch(`${server.url}/api/auth/sign-in/email`, {
        method: 'POST',
        // one address per attempt: the 10/60 s sign-in limit is per client
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.9.${Math.floor(address / 250)}.${address % 250}` },
        body: JSON.stringify({ email, password }),
      });
      const ms = performance.now() - started;
      if (response.status !== 200) throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
      const cookie = response.headers
        .getSetCookie()
        .find((line) => line.startsWith('waymark_session='))
        ?.split(';')[0];
      if (cookie === undefined) throw new Error('sign-in set no cookie');
      return { ms, cookie };
    };

    const { cookie } = await signIn();
    const run = (headers: Record<string, string>, duration: number): Promise<AutocannonResult> =>
      autocannon({ url: `${server.url}${PATH}`, connections: CONNECTIONS, duration, headers });
    const bearer = { authorization: `Bearer ${key.key}` };
    const session = { cookie };
    for (const [name, headers] of [
      ['bearer', bearer],
      ['session', session],
    ] as const) {
      const check = await fetch(`${server.url}${PATH}`, { headers });
      if (check.status !== 200) throw new Error(`${name} GET answered ${check.status}`);
    }

    // warm-up, then alternating pairs: the machine's speed drifts, so both sides see the same drift
    await run(bearer, 2);
    await run(session, 2);
    const totals = { bearer: 0, session: 0 };
    const p50 = { bearer: [] as number[], session: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 === 0 ? (['bearer', 'session'] as const) : (['session', 'bearer'] as const)) {
        const result = await run(side === 'bearer' ? bearer : session, SECONDS);
        if (result.non2xx > 0 || result.errors > 0) throw new Error(`${side}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        totals[side] += result.requests.average;
        p50[side].push(result.latency.p50);
      }
    }
    const bearerRps = totals.bearer / ROUNDS;
    const sessionRps = totals.session / ROUNDS;

    const signIns: number[] = [];
    for (let attempt = 0; attempt < SIGN_INS; attempt++) signIns.push((await signIn()).ms);
    const signInP50 = median(signIns);

    // the goal "a session costs at most 1.2× a bearer key" as a same-run ratio: session ≥ bearer ÷ 1.2
    const rows = [
      ratioRow('admin GET with a session cookie vs a bearer key', 'req/s', sessionRps, bearerRps, Number((1 / 1.2).toFixed(3))),
      limitRow('sign-in p50 (argon2id m=19 MiB t=2 p=1)', 'ms', signInP50, 300),
    ];
    console.log(`session auth (${ROUNDS} alternating rounds of ${SECONDS} s, ${CONNECTIONS} connections; ${SIGN_INS} sign-ins):`);
    console.log(`  p50 latency: session ${median(p50.session)} ms, bearer ${median(p50.bearer)} ms`);
    writeBenchResults('session-auth', rows);
    if (rows.some((row) => !row.pass)) process.exitCode = 1;
  } finally {
    await server.app.close();
    await server.deps.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
