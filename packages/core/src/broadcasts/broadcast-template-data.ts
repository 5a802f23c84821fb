import { z } from 'zod';
import type { EmailTemplate, TemplateRegistry } from '@waymark/email/email-template';
import { secretProps } from '@waymark/email/secret-props';
import type { JsonObject } from '../db/schema';
import { badRequest } from '../errors/app-error';

/** The props a template declares: the keys of its data schema (none when it is not an object schema). */
export function templateProps(template: EmailTemplate): Record<string, z.ZodType> {
  const schema: unknown = template.schema;
  if (schema instanceof z.ZodObject) return schema.shape as Record<string, z.ZodType>;
  if (schema instanceof z.ZodPipe && schema.in instanceof z.ZodObject) return schema.in.shape as Record<string, z.ZodType>;
  return {};
}

/**
 * The template of `key`, or 400 naming the field that named it. Not one Waymark sends itself
 * (`systemOnly`), nor one with secret props: a broadcast keeps its data, and a secret is never kept
 * (docs/email.md, "Secret props").
 */
export function getBroadcastTemplate(templates: TemplateRegistry, key: string, path: string): EmailTemplate {
  const template = templates.find(key);
  if (template === undefined) throw badRequest(`${path}: no email template '${key}'`);
  if (template.systemOnly === true) throw badRequest(`${path}: template '${key}' is sent only by Waymark itself`);
  const secrets = secretProps(template);
  if (secrets.length > 0) throw badRequest(`${path}: template '${key}' has secret props (${secrets.join(', ')}), which a broadcast cannot keep`);
  return template;
}

/**
 * A broadcast's `data` against its template, at create and patch: each key must be a prop the
 * template declares and hold a value that prop accepts; 400 naming the prop otherwise. A prop
 * `data` leaves out is not an error here: it may come from each recipient's contact properties.
 */
export function checkBroadcastData(template: EmailTemplate, data: Record<string, unknown>, path: string): void {
  const props = templateProps(template);
  for (const [prop, value] of Object.entries(data)) {
    const schema = props[prop];
    if (schema === undefined) throw badRequest(`${path}.${prop}: template '${template.key}' declares no prop '${prop}'`);
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw badRequest(`${path}.${prop}: ${parsed.error.issues[0]?.message ?? 'invalid value'}`);
  }
}

/**
 * One recipient's template data: `data`, then for each prop the template declares that `data`
 * lacks, the contact's property of the same name. Undefined when the result still fails the
 * template's schema (a required prop missing): the recipient is skipped as `missing_data`.
 */
export function recipientTemplateData(template: EmailTemplate, data: JsonObject, properties: JsonObject): JsonObject | undefined {
  const filled: JsonObject = { ...data };
  for (const prop of Object.keys(templateProps(template))) {
    if (filled[prop] === undefined && properties[prop] !== undefined) filled[prop] = properties[prop];
  }
  return template.schema.safeParse(filled).success ? filled : undefined;
}
