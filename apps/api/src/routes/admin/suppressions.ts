import { z } from 'zod';
import { importSuppressions } from '@waymark/core/preferences/suppression-import';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import { bearerErrors } from '../../schemas/common';

/** Rows per request; larger lists are sent in several requests (the import is idempotent). */
const MAX_ROWS = 10_000;

const rowShape = z.object({ email: z.string(), reason: z.string().optional(), externalId: z.string().optional() }).loose();

/**
 * SPEC §4 POST /v1/admin/suppressions/import (full-admin). Envelope (docs/email.md):
 * `{rows: [{email, reason?, externalId?}]}` → 200 `{total, applied, unchanged, failed, errors}`.
 * A row that fails validation is reported in `errors` (by index) without failing the batch.
 */
export const suppressionRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/v1/admin/suppressions/import',
    {
      config: { scope: 'full-admin', audit: { resource: 'contact', action: 'import' } },
      schema: {
        tags: ['contacts'],
        summary: 'Import suppressions (unsubscribed, bounced, complained); idempotent and quiet',
        body: z.object({ rows: z.array(rowShape).min(1).max(MAX_ROWS) }),
        response: {
          200: z.object({
            total: z.number(),
            applied: z.number(),
            unchanged: z.number(),
            failed: z.number(),
            errors: z.array(z.object({ row: z.number(), error: z.string() })),
          }),
          ...bearerErrors,
        },
      },
    },
    async (request) => {
      const result = await importSuppressions(deps.db, request.body.rows);
      request.auditRecord = { resourceId: null, detail: { total: result.total, applied: result.applied, unchanged: result.unchanged, failed: result.failed } };
      return result;
    },
  );
};
