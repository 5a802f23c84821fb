import { z } from 'zod';
import { allSecretProps } from '@waymark/email/secret-props';
import { openJsonPayloads, redactSecretProps } from '@waymark/temporal/payload-codec';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';
import { bearerErrors } from '../../schemas/common';

/** Where the Temporal Web UI's and CLI's codec endpoint points (they post to `<endpoint>/decode`). */
const DECODE_PATH = '/v1/admin/temporal-codec/decode';

const base64 = z.string().max(4 * 1024 * 1024);
const jsonPayload = z.object({ metadata: z.record(z.string().max(256), base64.max(4096)).optional(), data: base64.optional() });
const payloads = z.object({ payloads: z.array(jsonPayload).max(1000) }).meta({ id: 'TemporalCodecPayloads' });

/**
 * Admin plane: the Temporal Web UI's remote codec (docs/deploy.md, "Secrets"). Temporal's history
 * holds every payload sealed under ENCRYPTION_KEYS; this opens those a person views, for
 * full-admin callers only, and never seals (nothing the UI sends becomes history).
 */
export const temporalCodecRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  const { templates } = deps.email;
  const secretKeys = allSecretProps(templates.keys().flatMap((key) => templates.find(key) ?? []));
  // The one admin route another origin may call with a person's session: the Temporal Web UI's
  // (TEMPORAL_UI_URL), which sends its calls with credentials. Its CORS allows them for that origin
  // alone, and so the route takes that origin's sessions (session-principal.ts).
  const cors = {
    origin: new URL(deps.config.temporal.uiUrl).origin,
    credentials: true,
    methods: ['POST'],
    allowedHeaders: ['content-type', 'x-namespace', 'authorization'],
  };
  // the UI's preflight, answered by @fastify/cors with this route's CORS before anything else runs
  app.options(DECODE_PATH, { config: { scope: 'full-admin', cors }, schema: { hide: true } }, async (_request, reply) => reply.code(204).send());
  app.post(
    DECODE_PATH,
    {
      // read-only, but every admin POST is audited: opening a run's payloads is an export of journey data
      config: {
        scope: 'full-admin',
        audit: { resource: 'journey', action: 'export' },
        cors,
      },
      schema: {
        tags: ['temporal'],
        summary: "Open the Temporal Web UI's payloads (its remote codec endpoint)",
        description:
          "Temporal's codec server protocol: `{payloads}` as Temporal's JSON writes them (metadata values and data base64), answered in the same order, " +
          'each sealed one opened with the key it names and the rest as they are, and every prop a template declares secret shown as `[redacted]`. ' +
          'A session may call it from TEMPORAL_UI_URL as well as from the studio. ' +
          '400 for a payload marked sealed that does not open; 503 for one sealed under a key ENCRYPTION_KEYS does not hold.',
        body: payloads,
        response: { 200: payloads, ...bearerErrors },
      },
    },
    async (request) => {
      const opened = redactSecretProps(openJsonPayloads(request.body.payloads, deps.config.encryptionKeys), secretKeys);
      const namespace = request.headers['x-namespace'];
      request.auditRecord = {
        resourceId: null,
        detail: { temporalCodec: 'decode', payloads: opened.length, namespace: typeof namespace === 'string' ? namespace.slice(0, 200) : null },
      };
      return { payloads: opened };
    },
  );
};
