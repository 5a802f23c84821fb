import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config';
import { currentTraceparent, inNewSpan } from '../logging/trace-context';
import { integrationEnv } from '../../../../test/test-env';
import { createDatabase, type Db } from './database';

/** Statements carrying their span's trace to PostgreSQL (docs/operations.md, "Tracing"), on one real connection. */
describe('trace context of statements (tracing on)', () => {
  const config = loadConfig(integrationEnv());
  let provider: NodeTracerProvider;
  let db: Db;

  beforeAll(() => {
    provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] });
    provider.register();
    // one connection: every statement below finds what the one before left in its session
    db = createDatabase({ connectionString: config.databaseUrl, max: 1, traceContext: true });
  });
  afterAll(async () => {
    await db?.destroy();
    await provider?.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  const seen = async () => (await sql<{ value: string | null }>`select current_setting('waymark.trace_context', true) as value`.execute(db)).rows[0]!.value;

  it("gives each statement its span's traceparent, and none outside a span", async () => {
    const [inside, traceparent] = await inNewSpan('work', {}, async () => [await seen(), currentTraceparent()]);
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(inside).toBe(traceparent);
    expect(await seen()).toBe('');
    const [other, otherParent] = await inNewSpan('other work', {}, async () => [await seen(), currentTraceparent()]);
    expect(other).toBe(otherParent);
    expect(other).not.toBe(traceparent);
  });

  it('sets it again after a rollback undid it', async () => {
    await inNewSpan('work', {}, async () => {
      const traceparent = currentTraceparent();
      // the first statement in the span sets it inside the transaction, and the rollback undoes that
      await expect(
        db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
          throw new Error('undone');
        }),
      ).rejects.toThrow('undone');
      expect(await seen()).toBe(traceparent);
    });
  });

  it('an outbound event keeps the trace of the statement that wrote it (the column default)', async () => {
    const [row, traceparent] = await inNewSpan('work', {}, async () => [
      await db
        .insertInto('outboundEvents')
        .values({ event: 'webhook.test', payload: JSON.stringify({}) })
        .returning(['id', 'traceContext'])
        .executeTakeFirstOrThrow(),
      currentTraceparent(),
    ]);
    await db.deleteFrom('outboundEvents').where('id', '=', row.id).execute();
    expect(row.traceContext).toBe(traceparent);
    const untraced = await db
      .insertInto('outboundEvents')
      .values({ event: 'webhook.test', payload: JSON.stringify({}) })
      .returning(['id', 'traceContext'])
      .executeTakeFirstOrThrow();
    await db.deleteFrom('outboundEvents').where('id', '=', untraced.id).execute();
    expect(untraced.traceContext).toBeNull();
  });
});
