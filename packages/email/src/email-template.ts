import type { ReactElement } from 'react';
import type { z } from 'zod';

/** Links every rendered email carries (footer unsubscribe link, preference center). */
export interface EmailLinks {
  unsubscribeUrl: string;
  preferencesUrl: string;
}

/** What a template component receives: its validated data plus the per-recipient links. */
export type EmailTemplateProps<Data> = Data & { links: EmailLinks };

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
  subject(data: z.output<Schema>): string;
  component(props: EmailTemplateProps<z.output<Schema>>): ReactElement;
  /** data used by the preview and by tests */
  sampleData: z.input<Schema>;
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
