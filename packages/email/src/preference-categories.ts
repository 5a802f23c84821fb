import { DEFAULT_EMAIL_CATEGORY, type EmailTemplate } from './email-template';
import { canonicalLocale, localeChain } from './message-catalog';

/**
 * A preference category: a topic a person can leave on its own (docs/email.md, "Preference
 * categories"). The deployment declares its categories in journeys/categories.ts; the preference
 * center lists each, and every send, journey and contact preference must name one of them.
 */
export interface PreferenceCategory {
  /** stable key stored in preferences and on each send: lowercase letters, digits and dashes */
  key: string;
  /** what the preference center and the studio call it */
  label: string;
  /** one sentence on what these emails are */
  description: string;
  /**
   * Emails the person asked for (password resets, invitations, receipts): always sent, whatever
   * their opt-outs (only suppression, from bounces and complaints, stops them), listed in the
   * preference center without a toggle, never capped by the delivery policy, never a broadcast's
   * category. Default false.
   */
  required?: boolean;
  /**
   * `label` and `description` in other languages, by BCP 47 tag (docs/email.md, "Languages"): the
   * preference pages show the one the contact's `locale` picks (fr-CA → fr → `label` itself).
   */
  translations?: Readonly<Record<string, { label: string; description: string }>>;
}

/** A category's label and description in the language `locale` picks (fr-CA → fr → its own). */
export function localizedCategory(category: PreferenceCategory, locale: string | undefined): { label: string; description: string } {
  const translations = Object.entries(category.translations ?? {});
  for (const tag of localeChain(locale)) {
    const found = translations.find(([declared]) => canonicalLocale(declared) === tag);
    if (found !== undefined) return found[1];
  }
  return { label: category.label, description: category.description };
}

/** The declared categories, in the order the preference center lists them. */
export interface PreferenceCategories {
  all(): readonly PreferenceCategory[];
  find(key: string): PreferenceCategory | undefined;
  /** the keys among `keys` that no category declares (empty when all are known) */
  unknown(keys: Iterable<string>): string[];
  /** whether `key` names a required category (false for an unknown key) */
  required(key: string): boolean;
}

const KEY = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * Checks and indexes a deployment's categories. Throws at start-up on a bad key, a duplicate, an
 * empty label, or a list without `journey`: journey sends fall back to it, so it must exist. And
 * `journey` may not be required: journey emails are automated, so a person must be able to leave them.
 */
export function definePreferenceCategories(categories: readonly PreferenceCategory[]): PreferenceCategories {
  const byKey = new Map<string, PreferenceCategory>();
  for (const category of categories) {
    if (!KEY.test(category.key)) throw new Error(`Preference category key "${category.key}" must be lowercase letters, digits and dashes (max 63)`);
    if (byKey.has(category.key)) throw new Error(`Duplicate preference category "${category.key}"`);
    if (category.label.trim() === '') throw new Error(`Preference category "${category.key}" needs a label`);
    if (category.required !== undefined && typeof category.required !== 'boolean')
      throw new Error(`Preference category "${category.key}": required must be true or false`);
    if (category.key === DEFAULT_EMAIL_CATEGORY && category.required === true)
      throw new Error(
        `Preference category "${DEFAULT_EMAIL_CATEGORY}" may not be required: journey emails are automated, so a person must be able to leave them`,
      );
    byKey.set(category.key, {
      key: category.key,
      label: category.label,
      description: category.description,
      required: category.required === true,
      ...(category.translations === undefined ? {} : { translations: category.translations }),
    });
  }
  if (!byKey.has(DEFAULT_EMAIL_CATEGORY)) throw new Error(`The preference categories must include "${DEFAULT_EMAIL_CATEGORY}" (the default of journey sends)`);
  const list = [...byKey.values()];
  return {
    all: () => list,
    find: (key) => byKey.get(key),
    unknown: (keys) => [...new Set(keys)].filter((key) => !byKey.has(key)),
    required: (key) => byKey.get(key)?.required === true,
  };
}

/**
 * Throws at start-up when a template names a category the deployment does not declare: its
 * emails would carry a category nobody can see in the preference center or leave on its own.
 */
export function assertTemplateCategories(templates: readonly Pick<EmailTemplate, 'key' | 'category'>[], categories: PreferenceCategories): void {
  const undeclared = templates.filter((template) => template.category !== undefined && categories.find(template.category) === undefined);
  if (undeclared.length > 0)
    throw new Error(
      `Email templates name undeclared preference categories (declare them in journeys/categories.ts): ${undeclared
        .map((template) => `${template.key} → ${template.category}`)
        .join(', ')}`,
    );
}
