import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSesTransport } from '@waymark/email/ses-transport';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { emailsTo, uniqueAddress } from '../../../../test/email-emulator';
import { freePort } from '../../../../test/free-port';
import { eventually } from '../../../../test/eventually';
import { startTcpRelay } from '../../../../test/tcp-relay';
import { integrationEnv } from '../../../../test/test-env';
import { startThrottlingSesProxy, type ThrottlingSesProxy } from '../../../../test/throttling-ses-proxy';
import { createRedis } from '../cache/redis';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import { createEmailDeps } from '../emails/create-email-deps';
import { sendEmail, type SendEmailResult } from '../emails/send-email';
import { createSesSendQuotaReader } from '@waymark/email/ses-send-quota';
import { createSendRateGovernor, type SendRateGovernor, type SendRateGovernorOptions } from './send-rate-governor';
import { deploymentCategories } from '../../../../test/deployment-categories';

/** A logger whose lines the test reads (the governor logs its state changes once). */
function capturedLogger() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines, warnings: () => lines.filter((line) => line.level === 40).map((line) => line.msg) };
}

/**
 * The send-rate governor on the real Redis (TEST_CACHE_URL), the real SES emulator behind a
 * throttling proxy (test/throttling-ses-proxy.ts) and PostgreSQL. Each test has a key prefix of
 * its own, so budgets of other tests never mix in.
 */
describe('send-rate governor (Redis token bucket, SES Throttling, fallback)', () => {
  const env = integrationEnv();
  const governors: SendRateGovernor[] = [];
  const governor = (options: Partial<SendRateGovernorOptions> & { prefix: string; url?: string }) => {
    const made = createSendRateGovernor({
      redis: createRedis(options.url ?? env.CACHE_URL, { connectionName: 'waymark-test-send-rate' }),
      maxPerSecond: undefined,
      workerShare: undefined,
      readSesMaxSendRate: async () => undefined,
      logger: capturedLogger().logger,
      ...options,
    });
    governors.push(made);
    return made;
  };
  afterAll(() => Promise.all(governors.map((made) => made.close())));

  it('two governors (two processes) share ONE budget: one token at once, the rest one interval apart, in one queue', async () => {
    const prefix = `test-send-rate:${randomUUID()}`;
    // 1 per second, no waiting in the process: every later slot comes back as the moment to return
    const a = governor({ prefix, maxPerSecond: 1, maxWaitMs: 0 });
    const b = governor({ prefix, maxPerSecond: 1, maxWaitMs: 0 });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, n) => (n % 2 === 0 ? a : b).acquire(`send-${n}`)));
    // separate budgets would each have let one go at once and handed out the same moments twice
    expect(answers.filter((answer) => answer === undefined)).toHaveLength(1);
    const slots = answers.filter((answer): answer is Date => answer !== undefined).map((date) => date.getTime());
    slots.sort((x, y) => x - y);
    const gaps = slots.slice(1).map((slot, n) => slot - slots[n]!);
    expect(gaps).toHaveLength(8);
    for (const gap of gaps) expect(gap).toBeGreaterThan(900);
    // both see the same queue: nine sends wait for their slot
    expect((await a.snapshot()).waiting).toBe(9);
    expect((await b.snapshot()).waiting).toBe(9);
    // each counts the processes at its own heartbeat (every 5 s): under load b's first one can land before a's
    const shared = await eventually(
      () => b.snapshot(),
      (snapshot) => snapshot.processes === 2,
      { what: 'both governors counted', timeoutMs: 12_000 },
    );
    expect(shared).toMatchObject({ limitPerSecond: 1, source: 'env', fallback: false, processes: 2 });
  });

  it('keeps a deferred send its slot: coming back with the same key gets the same moment, not a new place at the end', async () => {
    const prefix = `test-send-rate:${randomUUID()}`;
    const a = governor({ prefix, maxPerSecond: 1, maxWaitMs: 0 });
    await a.acquire('first');
    const kept = await a.acquire('second');
    await a.acquire('third');
    const again = await a.acquire('second');
    expect(kept).toBeInstanceOf(Date);
    expect(Math.abs(again!.getTime() - kept!.getTime())).toBeLessThan(500);
    expect((await a.snapshot()).waiting).toBe(2);
  });

  it('sizes the budget from SES GetAccount (MaxSendRate); SES_MAX_SEND_RATE overrides it; unlimited when SES does not say (the emulator)', async () => {
    const proxy = await startThrottlingSesProxy({ target: env.SES_ENDPOINT, maxSendRate: 14 });
    try {
      const reader = (endpoint: string) => createSesSendQuotaReader({ region: 'us-east-1', endpoint, apiKey: env.EMAIL_PROVIDER_API_KEY });
      const fromSes = governor({ prefix: `test-send-rate:${randomUUID()}`, readSesMaxSendRate: reader(proxy.url) });
      expect(await fromSes.snapshot()).toMatchObject({ limitPerSecond: 14, source: 'ses' });
      const overridden = governor({ prefix: `test-send-rate:${randomUUID()}`, maxPerSecond: 50, readSesMaxSendRate: reader(proxy.url) });
      expect(await overridden.snapshot()).toMatchObject({ limitPerSecond: 50, source: 'env' });
      // the emulator answers GetAccount with 400 "Account not found"
      const emulator = governor({ prefix: `test-send-rate:${randomUUID()}`, readSesMaxSendRate: reader(env.SES_ENDPOINT) });
      expect(await emulator.snapshot()).toMatchObject({ limitPerSecond: null, source: 'none', currentPerSecond: null });
      expect(await emulator.acquire('any')).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });

  it('with Redis unreachable, a process sends at its share of the rate and says so once', async () => {
    const closed = await freePort();
    const { logger, warnings } = capturedLogger();
    const alone = governor({ prefix: 'test-send-rate:down', url: `redis://127.0.0.1:${closed}/5`, maxPerSecond: 4, workerShare: 0.5, maxWaitMs: 0, logger });
    // 2 per second in this process: one at once, then one every 500 ms
    const answers = await Promise.all([alone.acquire('a'), alone.acquire('b'), alone.acquire('c')]);
    expect(answers[0]).toBeUndefined();
    expect(answers[2]!.getTime() - answers[1]!.getTime()).toBeGreaterThan(400);
    expect(await alone.snapshot()).toMatchObject({ limitPerSecond: 4, fallback: true, sharePerSecond: 2, waiting: 2 });
    expect(warnings().filter((message) => message.includes('Redis is unreachable'))).toEqual([
      'send rate: Redis is unreachable; this process sends at most 2.00/s (its share of 4/s) until it is back',
    ]);
  });

  it('when Redis comes back, the process says so once and shares the installation budget again', async () => {
    const shared = new URL(env.CACHE_URL);
    const relay = await startTcpRelay({ host: shared.hostname, port: Number(shared.port || 6379) });
    const { logger, lines } = capturedLogger();
    const prefix = `test-send-rate:${randomUUID()}`;
    const relayed = governor({ prefix, url: `redis://127.0.0.1:${relay.port}${shared.pathname}`, maxPerSecond: 1, maxWaitMs: 0, logger });
    try {
      expect(await relayed.acquire('before')).toBeUndefined();
      await relay.cut();
      await eventually(
        async () => (await relayed.acquire(`down-${randomUUID()}`), (await relayed.snapshot()).fallback),
        (fallback) => fallback,
        { what: 'the governor in fallback' },
      );
      await relay.restore();
      await eventually(
        async () => (await relayed.acquire(`up-${randomUUID()}`), (await relayed.snapshot()).fallback),
        (fallback) => !fallback,
        { what: 'the governor back on Redis' },
      );
      const messages = lines.map((line) => line.msg).filter((message) => /Redis is (unreachable|reachable again)/.test(message));
      expect(messages).toEqual([
        'send rate: Redis is unreachable; this process sends at most 1.00/s (its share of 1/s) until it is back',
        'send rate: Redis is reachable again; every process shares the budget of 1/s',
      ]);
    } finally {
      await relay.close();
    }
  });

  describe('SES Throttling through the send path', () => {
    const config = loadConfig(env);
    let db: Db;
    let proxy: ThrottlingSesProxy;
    beforeAll(async () => {
      db = createDatabase({ connectionString: config.databaseUrl, max: 2 });
      proxy = await startThrottlingSesProxy({ target: env.SES_ENDPOINT });
    });
    afterAll(async () => {
      await proxy.close();
      await db.destroy();
    });

    it('is retried without counting an attempt, never failed into the DLQ, and the email goes out once', async () => {
      const sendRate = governor({ prefix: `test-send-rate:${randomUUID()}`, maxPerSecond: 100 });
      const transport = createSesTransport({ region: 'us-east-1', endpoint: proxy.url, apiKey: env.EMAIL_PROVIDER_API_KEY });
      const deps = createEmailDeps(config, { db, templates: emailTemplates, categories: deploymentCategories, transport, sendRate });
      const to = uniqueAddress('throttled');
      const input = { templateKey: 'welcome', to, data: { firstName: 'Ada' }, idempotencyKey: randomUUID(), maxAttempts: 2 };
      proxy.throttleNext(3);
      // what the activity's retry policy does: call again after each throw
      const thrown: string[] = [];
      let result: SendEmailResult | undefined;
      for (let attempt = 0; attempt < 6 && result === undefined; attempt += 1) {
        try {
          result = await sendEmail(deps, input);
        } catch (error) {
          thrown.push((error as Error).name);
        }
      }
      // three Throttling answers, more than maxAttempts (2) provider failures would allow
      expect(thrown).toEqual(['TooManyRequestsException', 'TooManyRequestsException', 'TooManyRequestsException']);
      expect(result?.status).toBe('sent');
      const row = await db.selectFrom('emailSends').selectAll().where('id', '=', result!.emailSendId!).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'sent', sendAttempts: 0 });
      expect(await db.selectFrom('dlqEntries').select('id').where('sourceId', '=', row.id).execute()).toEqual([]);
      expect(await emailsTo(to)).toHaveLength(1);
      expect((await sendRate.snapshot()).throttled).toBe(3);
    });
  });
});
