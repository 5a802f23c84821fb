import type { ReactElement } from 'react';
import type { z } from 'zod';
import { DEFAULT_LOCALE, type MessageCatalog, type Messages, type Translate } from './message-catalog';

/** Links every rendered email carries (footer unsubscribe link, preference center). */
export interface EmailLinks {
  unsubscribeUrl: string;
  preferencesUrl: string;
}

/**
 * What a template component receives: its validated data, the per-recipient links, and the
 * language it speaks to this recipient: `locale` (BCP 47, from the template's catalog) and `t`, which
 * formats a message of that locale (a template without a catalog gets the default locale and a `t`
 * that finds nothing).
 */
export type EmailTemplateProps<Data, Keys extends string = string> = Data & { links: EmailLinks; locale: string; t: Translate<Keys> };

/**
 * A React Email template. `schema` is the single source of the template's data type; `subject`
 * may use the data; `category` is what the recipient can unsubscribe from (default `journey`).
 */
export interface EmailTemplate<Schema extends z.ZodType<Record<string, unknown>> = z.ZodType<Record<string, unknown>>> {
  key: string;
  description?: string;
  category?: string;
  /**
   * Sent only by the service itself (the studio's reset and invitation emails, docs/auth.md):
   * POST /v1/emails, broadcasts and test sends refuse it, so no key sends the official message
   * with links of its own choosing.
   */
  systemOnly?: boolean;
  schema: Schema;
  /** its text per language (docs/email.md, "Languages"); `defineTemplate` builds it. Without one it speaks its own text only. */
  messages?: MessageCatalog;
  subject(data: z.output<Schema>, t: Translate): string;
  component(props: EmailTemplateProps<z.output<Schema>>): ReactElement;
  /** data used by the preview and by tests */
  sampleData: z.input<Schema>;
}

/** A template with a message catalog: what `defineTemplate` takes. */
export interface LocalizedTemplateDefinition<Schema extends z.ZodType<Record<string, unknown>>, Keys extends string> extends Omit<
  EmailTemplate<Schema>,
  'messages' | 'subject' | 'component'
> {
  /** the language of `messages[defaultLocale]`, whose keys every other locale must have (default `en`) */
  defaultLocale?: string;
  /** ICU MessageFormat messages by BCP 47 tag, then by key */
  messages: Readonly<Record<string, Messages<Keys>>>;
  subject(data: z.output<Schema>, t: Translate<NoInfer<Keys>>): string;
  component(props: EmailTemplateProps<z.output<Schema>, NoInfer<Keys>>): ReactElement;
}

/**
 * A template that speaks several languages: `t` (in `subject` and the component's props) takes
 * only the catalog's keys, so a typo is a type error, and a locale missing a message fails the
 * unit tests (catalogProblems). The recipient's locale picks the messages (resolveLocale).
 */
export function defineTemplate<Schema extends z.ZodType<Record<string, unknown>>, Keys extends string>(
  definition: LocalizedTemplateDefinition<Schema, Keys>,
): EmailTemplate<Schema> {
  const { defaultLocale = DEFAULT_LOCALE, messages, ...template } = definition;
  return { ...template, messages: { defaultLocale, messages } };
}

/** Looks a template up by key; the deployment's registry lives in journeys/templates/registry.ts. */
export interface TemplateRegistry {
  find(key: string): EmailTemplate | undefined;
  keys(): string[];
}

export const DEFAULT_EMAIL_CATEGORY = 'journey';

export function createTemplateRegistry(templates: readonly EmailTemplate[]): TemplateRegistry {
  const byKey = new Map<string, EmailTemplate>();
  for (const template of templates) {
    if (byKey.has(template.key)) throw new Error(`Duplicate email template key "${template.key}"`);
    byKey.set(template.key, template);
  }
  return {
    find: (key) => byKey.get(key),
    keys: () => [...byKey.keys()].sort(),
  };
}
