import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { isDatabaseUnavailable } from '@waymark/core/db/database-unavailable';
import { isTransientConflict } from '@waymark/core/db/pg-errors';
import { isAppError } from '@waymark/core/errors/app-error';

interface ValidationIssue {
  instancePath?: string;
  message?: string;
}

function describeValidation(context: string | undefined, issues: readonly ValidationIssue[]): string {
  const parts = issues.slice(0, 5).map((issue) => {
    const where = [context, ...(issue.instancePath ?? '').split('/').filter(Boolean)].filter(Boolean).join('.');
    return where ? `${where}: ${issue.message ?? 'invalid'}` : (issue.message ?? 'invalid');
  });
  return `Invalid request: ${parts.join('; ')}`;
}

/**
 * PostgreSQL refuses NUL in text (22021) and `\u0000` in jsonb (22P05). Only the request's own
 * content can cause either, so it is a 400, not a 500.
 */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

function isUnstorableText(error: unknown): boolean {
  const database = error as { code?: unknown; severity?: unknown };
  return typeof database.severity === 'string' && typeof database.code === 'string' && UNSTORABLE_TEXT.has(database.code);
}

/** Every error leaves as `{error}`; a 500 says nothing internal in production. */
export function registerErrorHandler(app: FastifyInstance, options: { production: boolean }): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (isAppError(error)) {
      // a 503 is a known condition (e.g. no key configured): one line, no stack
      if (error.status === 500) request.log.error({ err: error }, error.message);
      else if (error.status > 500) request.log.warn(error.message);
      if (error.retryAfterSeconds !== undefined) void reply.header('retry-after', String(error.retryAfterSeconds));
      return reply.status(error.status).send(error.reason === undefined ? { error: error.message } : { error: error.message, code: error.reason });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      return reply.status(400).send({ error: describeValidation(error.validationContext, error.validation) });
    }
    if (isUnstorableText(error)) {
      return reply.status(400).send({ error: 'Invalid request: text must not contain NUL (\\u0000) characters' });
    }
    if (isDatabaseUnavailable(error)) {
      // a known outage, not a bug: one line; the client retries (the pool reconnects by itself)
      request.log.warn(`database unavailable: ${error.message}`);
      return reply.status(503).header('retry-after', '1').send({ error: 'Service unavailable: the database cannot be reached; try again shortly' });
    }
    if (isTransientConflict(error)) {
      // rolled back whole by PostgreSQL (a lock cycle with a concurrent writer): the same request succeeds again
      request.log.warn(`transient database conflict: ${error.message}`);
      return reply.status(503).header('retry-after', '1').send({ error: 'Service busy: a concurrent change conflicted with this request; try again' });
    }
    if (isResponseSerializationError(error)) {
      request.log.error({ err: error, issues: error.cause?.issues }, 'response did not match its schema');
      return reply.status(500).send({ error: options.production ? 'Internal server error' : error.message });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.status(status).send({ error: error.message });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ error: options.production ? 'Internal server error' : error.message });
  });

  app.setNotFoundHandler((request, reply) => reply.status(404).send({ error: `Route ${request.method} ${request.url.split('?')[0]} not found` }));
}

/** Fastify `frameworkErrors`: router-level rejections (undecodable URL, over-long parameter) leave as `{error}` too. */
export function sendFrameworkError(error: FastifyError, _request: unknown, reply: FastifyReply): void {
  void reply.status(error.statusCode ?? 400).send({ error: error.message });
}
