import { Readable } from 'node:stream';
import { z } from 'zod';
import { EXPORT_MAX_ROWS, exportContacts, exportFileName } from '@waymark/core/contacts/contact-export';
import { getImportJob, startImportJob } from '@waymark/core/imports/import-jobs';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors, errorBody, mediaResponse } from '../../schemas/common';

const importJobSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(['pending', 'processing', 'completed', 'failed']),
    totalRows: z.number(),
    processedRows: z.number(),
    failedRows: z.number(),
    errors: z.array(z.object({ row: z.number(), error: z.string() })),
  })
  .meta({ id: 'ImportJob' });

const tags = ['contacts-bulk'];

/** Admin plane: bulk operations (full-admin). Limits and columns: docs/operations.md. */
export const contactBulkRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  const { maxBytes, maxRows } = deps.config.imports;

  app.post(
    '/v1/admin/contacts/import',
    {
      config: { scope: 'full-admin', audit: { resource: 'contact', action: 'import' } },
      // room for `data` JSON-escaped (quotes and newlines double); the exact limit is checked on `data`
      bodyLimit: maxBytes * 2 + 64 * 1024,
      schema: {
        tags,
        summary: `Import contacts from CSV or JSON (at most ${maxRows} rows and ${maxBytes} bytes of data); runs as a durable background job`,
        body: z.object({ format: z.enum(['csv', 'json']), data: z.string().min(1), fileName: z.string().max(255).optional() }),
        response: { 202: z.object({ jobId: z.uuid(), status: z.literal('pending') }), 413: errorBody, ...bearerErrors },
      },
    },
    async (request, reply) => {
      const job = await startImportJob(
        { db: deps.db, jobs: deps.temporal.jobs },
        { ...request.body, createdBy: request.principal?.actor ?? null },
        { maxBytes, maxRows },
      );
      request.auditRecord = { resourceId: job.id, detail: { format: request.body.format, rows: job.totalRows, fileName: request.body.fileName ?? null } };
      return reply.status(202).send({ jobId: job.id, status: 'pending' as const });
    },
  );

  app.get(
    '/v1/admin/contacts/import/:jobId',
    {
      config: { scope: 'full-admin' },
      schema: {
        tags,
        summary: 'Import job progress (processedRows = rows imported, failedRows = rows rejected; row numbers are 1-based data rows)',
        params: z.object({ jobId: z.uuid() }),
        response: { 200: importJobSchema, 404: errorBody, ...bearerErrors },
      },
    },
    async (request) => getImportJob(deps.db, request.params.jobId),
  );

  app.get(
    '/v1/admin/contacts/export',
    {
      config: { scope: 'full-admin', audit: { resource: 'contact', action: 'export' } },
      schema: {
        tags,
        summary: 'Export contacts as a streamed JSON array or CSV attachment (at most 10000 rows)',
        description:
          'CSV columns: id, externalId, email, properties (a JSON object in one cell), firstSeenAt, lastSeenAt, createdAt, updatedAt. Rows in id order.',
        querystring: z.object({
          format: z.enum(['json', 'csv']).default('json'),
          search: z.string().trim().max(320).optional(),
          limit: z.coerce.number().int().min(1).max(EXPORT_MAX_ROWS).default(EXPORT_MAX_ROWS),
        }),
        // a stream is sent as is (never through the serializer); the schema documents the body
        response: {
          200: mediaResponse('A JSON array of contacts (format=json) or CSV with a header row (format=csv), as an attachment', {
            'application/json': z.array(z.record(z.string(), z.unknown())),
            'text/csv': z.string(),
          }),
          ...bearerErrors,
        },
      },
    },
    async (request, reply) => {
      const { format, limit, search } = request.query;
      // whether the export was filtered, not by what: the text is often a person's address, which the append-only log could not give up at their erasure
      request.auditRecord = { detail: { format, limit, searched: search !== undefined } };
      reply.header('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
      reply.header('content-disposition', `attachment; filename="${exportFileName(format, new Date())}"`);
      return reply.send(Readable.from(exportContacts(deps.db, { format, limit, search })));
    },
  );
};
