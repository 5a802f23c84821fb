import type { z } from 'zod';
import type { EmailLinks, EmailTemplate, TemplateRegistry } from '@waymark/email/email-template';
import { DEFAULT_LOCALE } from '@waymark/email/message-catalog';
import { renderEmail, TemplateDataError, type RenderedEmail } from '@waymark/email/render-email';
import { sendCategoryKey } from '../delivery/send-category';
import { badRequest, notFound } from '../errors/app-error';

export interface TemplateSummary {
  key: string;
  description: string | null;
  category: string;
  /** the template's own sample data: a starting point for previews and test sends */
  sampleData: Record<string, unknown>;
  /** the data its props schema accepts, as JSON Schema (what `waymark client generate --from` types sendEmail with) */
  dataSchema: Record<string, unknown>;
  /** the languages its catalog speaks, its default first (docs/email.md, "Languages") */
  locales: string[];
}

function inputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...json } = schema.toJSONSchema({ io: 'input', unrepresentable: 'any' });
  return json;
}

/** Every registered template, sorted by key (the studio's template list). */
export function listTemplates(templates: TemplateRegistry): TemplateSummary[] {
  return templates.keys().map((key) => {
    const template = templates.find(key);
    if (template === undefined) throw notFound(`Template not found: ${key}`);
    return {
      key,
      description: template.description ?? null,
      category: sendCategoryKey(template.category),
      sampleData: template.sampleData as Record<string, unknown>,
      dataSchema: inputJsonSchema(template.schema),
      locales: templateLocales(template),
    };
  });
}

/** A template's languages, its default first: one without a catalog speaks the default locale only. */
function templateLocales(template: EmailTemplate): string[] {
  const catalog = template.messages;
  if (catalog === undefined) return [DEFAULT_LOCALE];
  return [catalog.defaultLocale, ...Object.keys(catalog.messages).filter((locale) => locale !== catalog.defaultLocale)];
}

/**
 * Renders a template with caller-given data for a preview, in `locale` (a recipient's, resolved
 * by the template's catalog; default: the template's own). No send row, no link tracking, no
 * pixel: a preview must never count as an open or a click. Invalid data is the caller's mistake (400).
 */
export async function renderTemplatePreview(
  templates: TemplateRegistry,
  key: string,
  data: unknown,
  links: EmailLinks,
  locale?: string | null,
): Promise<RenderedEmail> {
  const template = templates.find(key);
  if (template === undefined) throw notFound(`Template not found: ${key}`);
  try {
    return await renderEmail(template, data, links, locale);
  } catch (error) {
    if (error instanceof TemplateDataError) throw badRequest(error.message);
    throw error;
  }
}

/** Footer links of a preview: they show where the real links go without carrying a usable token. */
export function previewLinks(publicUrl: string): EmailLinks {
  return {
    unsubscribeUrl: `${publicUrl}/v1/email/unsubscribe?token=preview`,
    preferencesUrl: `${publicUrl}/v1/email/preferences?token=preview`,
  };
}
