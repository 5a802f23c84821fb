import type { z } from 'zod';
import type { SignatureScheme, SourceHeaders } from './schemes/signature-scheme';

/**
 * What a source's transform produces: one event for the ingest pipeline (the same one
 * `POST /v1/events` runs). `idempotencyKey` should be the provider's delivery id, so a
 * redelivered webhook is stored once and starts no second enrollment.
 */
export interface IngestEvent {
  event: string;
  userId?: string | undefined;
  userEmail?: string | undefined;
  anonymousId?: string | undefined;
  eventProperties: Record<string, unknown>;
  contactProperties?: Record<string, unknown> | undefined;
  idempotencyKey?: string | undefined;
}

/**
 * `match`: the header (or `Authorization: Bearer`) must equal the secret; with the variable
 * unset every request is refused, unless `<NAME>_WEBHOOK_OPEN=true` opens it (development only:
 * production refuses to start with an open source). `signature`: the raw body is verified with `scheme`; with the
 * variable unset every request is refused. Either way `secret` NAMES an environment variable
 * ending in `_WEBHOOK_SECRET`; it may hold several secrets separated by spaces (rotation).
 */
export type SourceAuth =
  { type: 'match'; secret: string; header?: string } | { type: 'signature'; secret: string; scheme: SignatureScheme; fallbackHeader?: string };

/** A transform returns nothing when the payload names nobody or is not interesting: 200 skipped. */
export type SourceTransform<P> = (payload: P, headers: SourceHeaders) => IngestEvent | null | undefined;

export interface SourceDefinition<S extends z.ZodType> {
  /** the path segment: POST /v1/webhooks/{id} */
  id: string;
  description?: string;
  auth: SourceAuth;
  /** validates the parsed JSON body (400 with the failing path); without it the transform gets `unknown` */
  schema?: S;
  transform: SourceTransform<z.output<S>>;
  /** built-in presets: mounted only when their secret variable is set */
  mountWhenSecretSet?: boolean;
  /** remember each person's contactProperties in Redis and fill a missing email from them */
  propertyCache?: boolean;
}

/** A source as the registry holds it: the payload type is erased once the schema checks it. */
export interface Source {
  id: string;
  description: string | undefined;
  auth: SourceAuth;
  schema: z.ZodType | undefined;
  transform: SourceTransform<unknown>;
  mountWhenSecretSet: boolean;
  propertyCache: boolean;
}

export const SOURCE_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const SECRET_VARIABLE = /^[A-Z][A-Z0-9_]*_WEBHOOK_SECRET$/;

export function defineSource<S extends z.ZodType = z.ZodType<unknown>>(definition: SourceDefinition<S>): Source {
  if (!SOURCE_ID.test(definition.id)) throw new Error(`webhook source id "${definition.id}" must match ${SOURCE_ID}`);
  if (!SECRET_VARIABLE.test(definition.auth.secret))
    throw new Error(`webhook source "${definition.id}": secret must name an environment variable ending in _WEBHOOK_SECRET`);
  return {
    id: definition.id,
    description: definition.description,
    auth: definition.auth,
    schema: definition.schema,
    // the schema (when given) has produced exactly this type before the transform is called
    transform: definition.transform as SourceTransform<unknown>,
    mountWhenSecretSet: definition.mountWhenSecretSet ?? false,
    propertyCache: definition.propertyCache ?? false,
  };
}
