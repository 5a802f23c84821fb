import { z } from 'zod';
import { MAX_SEGMENT_DEPTH, MAX_SEGMENT_LEAVES, segmentConditionSchema } from '@waymark/core/segments/segment-conditions';
import { createSegmentCounts } from '@waymark/core/segments/segment-counts';
import {
  createSegment,
  deleteSegment,
  getSegment,
  listSegmentContacts,
  listSegments,
  PREVIEW_SAMPLE_SIZE,
  previewSegment,
  updateSegment,
} from '@waymark/core/segments/segments';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@waymark/core/errors/app-error';
import type { AppDeps } from '../../deps';
import { createConcurrencySlots } from '../../http/concurrency-slots';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, errorBody, listEnvelope, page, paginationQuery, timestamp } from '../../schemas/common';
import { contactSchema } from '../../schemas/contacts';

const segmentSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    conditions: segmentConditionSchema,
    count: z.number().describe('contacts in the segment now (computed on read, up to 60 s old)'),
    createdBy: z.string().nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Segment' });

/**
 * The tree is checked by core (parseSegmentConditions), which names the failing path
 * (`conditions.all[1].operator: …`); a union of recursive schemas here would answer only
 * "invalid input" at the top. The document still states the shape.
 */
const conditions = z
  .unknown()
  .refine((value) => value !== undefined, 'Required')
  .meta({
    // the component the responses register (segmentSchema.conditions)
    $ref: '#/components/schemas/SegmentCondition',
    description: `The condition tree (docs/segments.md): {all: [...]}, {any: [...]}, {not: c} and leaves of type property, list, event, email, lastSeen; at most ${MAX_SEGMENT_DEPTH} levels and ${MAX_SEGMENT_LEAVES} leaves. A bad tree answers 400 naming the failing path.`,
  });

const name = z.string().trim().min(1).max(200);
const description = z.string().trim().max(2000);
const params = z.object({ id: z.uuid() });
const tags = ['segments'];
const segmentBody = z.object({ segment: segmentSchema });

/**
 * Segments: saved audiences evaluated in PostgreSQL (docs/segments.md). Reads need `read`,
 * writes `journey-admin`; the work is packages/core/src/segments/.
 */
export const segmentRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  const { queryTimeoutMs, queryConcurrency } = deps.config.segments;
  const segments = { db: deps.db, counts: createSegmentCounts(), queryTimeoutMs };
  // a request runs at most two bounded statements (a count and a page); the lease outlasts both
  const slots = createConcurrencySlots({ redis: deps.redis, name: 'segment-query', max: queryConcurrency, leaseMs: 2 * queryTimeoutMs + 10_000 });

  /**
   * Every route that evaluates a tree runs within one of its caller's SEGMENT_QUERY_CONCURRENCY
   * slots (per key or per person), so one caller cannot hold more of the pool than that.
   */
  async function inSlot<T>(request: FastifyRequest, reply: FastifyReply, work: () => Promise<T>): Promise<T> {
    const principal = request.principal;
    let who = `address:${request.ip}`;
    if (principal?.actorUserId != null) who = `user:${principal.actorUserId}`;
    else if (principal?.actorKeyId != null) who = `key:${principal.actorKeyId}`;
    else if (principal !== undefined) who = `actor:${principal.actor}`;
    const release = await slots.acquire(who);
    if (release === undefined) {
      void reply.header('retry-after', Math.ceil(queryTimeoutMs / 1000));
      throw new AppError('rate_limited', `At most ${queryConcurrency} segment queries at once per key or person; retry when one has finished`);
    }
    try {
      return await work();
    } finally {
      await release();
    }
  }

  app.post(
    '/v1/admin/segments',
    {
      config: { scope: 'journey-admin', audit: { resource: 'segment', action: 'create' } },
      schema: {
        tags,
        summary: 'Save a segment',
        description: '409 when another segment has the same name (case-insensitive); 400 naming the path of a bad condition or an unknown list.',
        body: z.strictObject({ name, description: description.optional(), conditions }),
        response: { 201: segmentBody, 409: errorBody, 422: errorBody, ...bearerErrors },
      },
    },
    async (request, reply) => {
      const segment = await inSlot(request, reply, () => createSegment(segments, request.body, request.principal?.actor ?? null));
      request.auditRecord = { resourceId: segment.id, detail: { name: segment.name } };
      return reply.status(201).send({ segment });
    },
  );

  app.get(
    '/v1/admin/segments',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'List segments, newest first, each with its count',
        querystring: paginationQuery,
        response: { 200: listEnvelope('segments', segmentSchema), 422: errorBody, ...bearerErrors },
      },
    },
    async (request, reply) => page(request.query, await inSlot(request, reply, () => listSegments(segments, request.query))),
  );

  app.post(
    '/v1/admin/segments/preview',
    {
      // read-only, but every admin POST is audited; the sample shows contacts, so it is recorded as an export
      config: { scope: 'read', audit: { resource: 'segment', action: 'export' } },
      schema: {
        tags,
        summary: `How many contacts a condition tree matches, and up to ${PREVIEW_SAMPLE_SIZE} of them (nothing is saved)`,
        description:
          'Bounded (docs/segments.md, Limits): 400 past 2,000 values across the `in` lists, 422 `Segment too expensive: …` past SEGMENT_QUERY_TIMEOUT_MS, 429 with Retry-After past SEGMENT_QUERY_CONCURRENCY queries at once per key or person.',
        body: z.strictObject({ conditions }),
        response: { 200: z.object({ count: z.number(), sample: z.array(contactSchema) }), 422: errorBody, ...bearerErrors },
      },
    },
    async (request, reply) => inSlot(request, reply, () => previewSegment(segments, request.body.conditions)),
  );

  app.get(
    '/v1/admin/segments/:id',
    {
      config: { scope: 'read' },
      schema: { tags, summary: 'A segment with its count', params, response: { 200: segmentBody, 404: errorBody, 422: errorBody, ...bearerErrors } },
    },
    async (request, reply) => ({ segment: await inSlot(request, reply, () => getSegment(segments, request.params.id)) }),
  );

  app.patch(
    '/v1/admin/segments/:id',
    {
      config: { scope: 'journey-admin', audit: { resource: 'segment', action: 'update' } },
      schema: {
        tags,
        summary: "Change a segment's name, description or conditions",
        params,
        body: z.strictObject({ name: name.optional(), description: description.nullable().optional(), conditions: conditions.optional() }),
        response: { 200: segmentBody, 404: errorBody, 409: errorBody, 422: errorBody, ...bearerErrors },
      },
    },
    async (request, reply) => {
      const segment = await inSlot(request, reply, () => updateSegment(segments, request.params.id, request.body));
      request.auditRecord = { resourceId: segment.id, detail: { fields: Object.keys(request.body) } };
      return { segment };
    },
  );

  app.delete(
    '/v1/admin/segments/:id',
    {
      config: { scope: 'journey-admin', audit: { resource: 'segment', action: 'delete' } },
      schema: {
        tags,
        summary: 'Delete a segment (its contacts are not touched)',
        params,
        response: { 200: z.object({ deleted: z.literal(true) }), 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => {
      await deleteSegment(deps.db, request.params.id);
      request.auditRecord = { resourceId: request.params.id };
      return { deleted: true as const };
    },
  );

  app.get(
    '/v1/admin/segments/:id/contacts',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: "The segment's contacts now, most recently seen first (total is exact)",
        params,
        querystring: paginationQuery,
        response: { 200: listEnvelope('contacts', contactSchema), 404: errorBody, 422: errorBody, ...bearerErrors },
      },
    },
    async (request, reply) => page(request.query, await inSlot(request, reply, () => listSegmentContacts(segments, request.params.id, request.query))),
  );
};
