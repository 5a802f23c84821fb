import type { z } from 'zod';
import type { EmailTemplate } from './email-template';

/**
 * What a secret prop's value is stored and shown as (docs/email.md, "Secret props"): the send
 * uses the value, nothing kept after it does.
 */
export const REDACTED = '[redacted]';

/**
 * How a template marks a prop, beside it: secret (`resetUrl: z.url().meta({ secret: true })`), or
 * text (`firstName: z.string().meta({ text: true })`: the template only puts its value into text or
 * an attribute as it is, never decides anything by it, render-plan.ts).
 */
interface PropMeta {
  secret?: boolean;
  text?: boolean;
}

interface Inspectable {
  meta(): PropMeta | undefined;
  def: { innerType?: unknown; in?: unknown };
}

/** True when `.meta({ [flag]: true })` sits on the prop or on a schema it wraps (optional, default, nullable…). */
function marked(schema: unknown, flag: keyof PropMeta): boolean {
  for (let current = schema as Inspectable | undefined, depth = 0; current !== undefined && depth < 8; depth++) {
    if (current.meta()?.[flag] === true) return true;
    current = (current.def.innerType ?? current.def.in) as Inspectable | undefined;
  }
  return false;
}

function objectShape(schema: unknown): Record<string, z.ZodType> {
  const def = (schema as Inspectable & { def: { type?: string; shape?: Record<string, z.ZodType> } }).def;
  if (def.type === 'object' && def.shape !== undefined) return def.shape;
  // a preprocessed or transformed object: its input shape declares the props
  if (def.type === 'pipe' && def.in !== undefined) return objectShape(def.in);
  return {};
}

const caches = { secret: new WeakMap<EmailTemplate, readonly string[]>(), text: new WeakMap<EmailTemplate, readonly string[]>() };

function markedProps(template: EmailTemplate, flag: keyof PropMeta): readonly string[] {
  let props = caches[flag].get(template);
  if (props === undefined) {
    props = Object.entries(objectShape(template.schema))
      .filter(([, schema]) => marked(schema, flag))
      .map(([prop]) => prop);
    caches[flag].set(template, props);
  }
  return props;
}

/** The top-level props `template` declares secret (its schema's `.meta({ secret: true })`). */
export function secretProps(template: EmailTemplate): readonly string[] {
  return markedProps(template, 'secret');
}

/** The top-level props `template` declares text (its schema's `.meta({ text: true })`). */
export function textProps(template: EmailTemplate): readonly string[] {
  return markedProps(template, 'text');
}

/** `data` as it may be kept: each secret prop it holds becomes REDACTED. */
export function redactSecrets(template: EmailTemplate, data: Record<string, unknown>): Record<string, unknown> {
  const props = secretProps(template).filter((prop) => data[prop] !== undefined && data[prop] !== null);
  if (props.length === 0) return data;
  return { ...data, ...Object.fromEntries(props.map((prop) => [prop, REDACTED])) };
}

/** The secret props whose value in `data` is the placeholder: kept data that cannot be sent again. */
export function redactedProps(template: EmailTemplate, data: Record<string, unknown>): string[] {
  return secretProps(template).filter((prop) => data[prop] === REDACTED);
}

/** The live values of the secret props in `data` (the link tracker leaves links holding one alone). */
export function secretValues(template: EmailTemplate, data: Record<string, unknown>): string[] {
  return secretProps(template).flatMap((prop) => {
    const value = data[prop];
    return typeof value === 'string' && value !== REDACTED && value !== '' ? [value] : [];
  });
}

/** `text` (a subject) as it may be kept: every live secret value of `data` in it becomes REDACTED. */
export function redactSecretText(template: EmailTemplate, data: Record<string, unknown>, text: string): string {
  return secretValues(template, data).reduce((kept, value) => kept.split(value).join(REDACTED), text);
}

/** Every secret prop the templates declare: what a value kept outside a send (a Temporal payload, an exported history) is redacted by. */
export function allSecretProps(templates: Iterable<EmailTemplate>): Set<string> {
  return new Set([...templates].flatMap((template) => secretProps(template)));
}

/**
 * The live values a JSON value holds under a secret prop's name, at any depth (a template's data
 * inside an activity's input): each is redacted wherever else it appears too (the event property
 * a journey took a link from). Adds them to `into`.
 */
export function secretValuesUnder(value: unknown, secretKeys: ReadonlySet<string>, into: Set<string> = new Set(), key = ''): Set<string> {
  if (typeof value === 'string') {
    if (secretKeys.has(key) && value !== '' && value !== REDACTED) into.add(value);
  } else if (typeof value === 'object' && value !== null) {
    for (const [name, item] of Object.entries(value)) secretValuesUnder(item, secretKeys, into, Array.isArray(value) ? key : name);
  }
  return into;
}

/** One string of a JSON value as it may be shown: REDACTED under a secret prop's name, else with each of `secrets` in it redacted. */
export function redactSecretString(text: string, key: string, secretKeys: ReadonlySet<string>, secrets: Iterable<string>): string {
  if (secretKeys.has(key) && text !== '') return REDACTED;
  let kept = text;
  for (const secret of secrets) kept = kept.split(secret).join(REDACTED);
  return kept;
}

/** A JSON value with `redactSecretString` applied to every string in it. */
export function redactSecretsIn(value: unknown, secretKeys: ReadonlySet<string>, secrets: ReadonlySet<string>, key = ''): unknown {
  if (typeof value === 'string') return redactSecretString(value, key, secretKeys, secrets);
  if (Array.isArray(value)) return value.map((item) => redactSecretsIn(item, secretKeys, secrets, key));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, redactSecretsIn(item, secretKeys, secrets, name)]));
}
