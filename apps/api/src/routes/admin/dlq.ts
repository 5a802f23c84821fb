import { z } from 'zod';
import { discardDlqEntry, listDlqEntries } from '@waymark/core/dlq/dlq-entries';
import { retryDeadLetter } from '@waymark/core/dlq/retry-dead-letter';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, errorBody, listEnvelope, nullableTimestamp, page, paginationQuery, timestamp } from '../../schemas/common';

const dlqStatus = z.enum(['pending', 'retried', 'discarded']);

const dlqEntrySchema = z
  .object({
    id: z.uuid(),
    source: z.string(),
    sourceId: z.string().nullable(),
    payload: z.record(z.string(), z.unknown()),
    error: z.string(),
    retryCount: z.number(),
    status: dlqStatus,
    retriedAt: nullableTimestamp,
    createdAt: timestamp,
  })
  .meta({ id: 'DlqEntry' });

const entryParams = z.object({ id: z.uuid() });
const tags = ['dlq'];

/** SPEC §4 Admin: dead letter queue (full-admin). Retry semantics per source: docs/operations.md. */
export const dlqRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/admin/dlq',
    {
      config: { scope: 'full-admin' },
      schema: {
        tags,
        summary: 'List dead-letter entries, newest first',
        querystring: paginationQuery.extend({ source: z.string().trim().min(1).max(50).optional(), status: dlqStatus.optional() }),
        response: { 200: listEnvelope('entries', dlqEntrySchema), ...bearerErrors },
      },
    },
    async (request) => {
      return page(request.query, await listDlqEntries(deps.db, request.query));
    },
  );

  app.post(
    '/v1/admin/dlq/:id/retry',
    {
      config: { scope: 'full-admin', audit: { resource: 'dlq', action: 'replay' } },
      schema: {
        tags,
        summary: 'Re-queue the task through its original pipeline (pending → retried)',
        params: entryParams,
        response: {
          200: z.object({ id: z.uuid(), status: z.literal('retried'), retriedAt: timestamp }),
          404: errorBody,
          409: errorBody,
          ...bearerErrors,
        },
      },
    },
    async (request) => {
      const entry = await retryDeadLetter(deps.db, request.params.id, deps.deadLetterRetryHandlers);
      request.auditRecord = { detail: { source: entry.source, sourceId: entry.sourceId } };
      return { id: entry.id, status: 'retried' as const, retriedAt: entry.retriedAt ?? new Date() };
    },
  );

  app.delete(
    '/v1/admin/dlq/:id',
    {
      config: { scope: 'full-admin', audit: { resource: 'dlq', action: 'delete' } },
      schema: {
        tags,
        summary: 'Discard a pending entry (it will not be retried)',
        params: entryParams,
        response: { 200: z.object({ id: z.uuid(), status: z.literal('discarded') }), 404: errorBody, 409: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      const entry = await discardDlqEntry(deps.db, request.params.id);
      return { id: entry.id, status: 'discarded' as const };
    },
  );
};
