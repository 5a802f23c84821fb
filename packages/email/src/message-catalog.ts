import { IntlMessageFormat } from 'intl-messageformat';

/**
 * Message catalogs: the text of an email template or a public page per language (docs/email.md,
 * "Languages"). Each message is ICU MessageFormat (`Hi {firstName}`, plurals, selects), formatted by
 * intl-messageformat; a catalog lists its default locale's messages and, under each further BCP 47
 * tag, the same keys translated.
 */

/** The default locale of a template or page that declares none. */
export const DEFAULT_LOCALE = 'en';

/** One language's messages, by key. */
export type Messages<Keys extends string = string> = Readonly<Record<Keys, string>>;

/** Values a message's `{arguments}` take. */
export type MessageValues = Readonly<Record<string, string | number | boolean | Date | null | undefined>>;

/** Formats one message of the chosen locale. */
export type Translate<Keys extends string = string> = (key: Keys, values?: MessageValues) => string;

export interface MessageCatalog<Keys extends string = string> {
  /** the locale whose messages are the source (and the end of every fallback chain) */
  defaultLocale: string;
  /** every locale's messages, the default's included, keyed by BCP 47 tag */
  messages: Readonly<Record<string, Messages<Keys>>>;
}

/** The canonical form of a BCP 47 tag (`fr-ca` → `fr-CA`), or undefined when it is not one. */
export function canonicalLocale(tag: unknown): string | undefined {
  if (typeof tag !== 'string' || tag === '') return undefined;
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

/**
 * The tags tried for a requested locale, most specific first, extensions dropped:
 * `fr-CA` → `fr-CA`, `fr`; `zh-Hant-TW` → `zh-Hant-TW`, `zh-Hant`, `zh`. An invalid tag tries nothing.
 */
export function localeChain(requested: string | null | undefined): string[] {
  const canonical = canonicalLocale(requested);
  if (canonical === undefined) return [];
  const parts = new Intl.Locale(canonical).baseName.split('-');
  return parts.map((_part, index) => parts.slice(0, parts.length - index).join('-'));
}

/**
 * The locale a catalog speaks for a requested one: the first of its chain the catalog has
 * (`fr-CA` → `fr-CA`, then `fr`), else the catalog's default (`de` with English and French: `en`).
 */
export function resolveLocale(catalog: MessageCatalog | undefined, requested: string | null | undefined): string {
  if (catalog === undefined) return DEFAULT_LOCALE;
  // every send asks (its row, its template, the layout's footer), and Intl's canonicalization is
  // slow: a broadcast's profile had it at 2% of the worker's CPU. A catalog's answers are kept.
  let answers = resolved.get(catalog);
  if (answers === undefined || answers.size >= MAX_RESOLVED) {
    answers = new Map();
    resolved.set(catalog, answers);
  }
  const key = requested ?? '';
  let answer = answers.get(key);
  if (answer === undefined) {
    answer = resolveUncached(catalog, requested);
    answers.set(key, answer);
  }
  return answer;
}

const resolved = new WeakMap<MessageCatalog, Map<string, string>>();
/** requested locales kept per catalog; past it they start again */
const MAX_RESOLVED = 1000;

function resolveUncached(catalog: MessageCatalog, requested: string | null | undefined): string {
  const declared = new Map(Object.keys(catalog.messages).map((tag) => [canonicalLocale(tag) ?? tag, tag]));
  for (const tag of localeChain(requested)) {
    const found = declared.get(tag);
    if (found !== undefined) return found;
  }
  return catalog.defaultLocale;
}

// a send formats the same few messages again and again: each is parsed once per process
const compiled = new WeakMap<MessageCatalog, Map<string, IntlMessageFormat>>();

/**
 * `t(key, values)` for one locale of a catalog (resolveLocale's answer). A key the locale lacks
 * (which catalogProblems reports and the unit tests refuse) falls back to the default locale's message.
 */
export function translator<Keys extends string>(catalog: MessageCatalog<Keys>, locale: string): Translate<Keys> {
  let formats = compiled.get(catalog);
  if (formats === undefined) {
    formats = new Map();
    compiled.set(catalog, formats);
  }
  const cache = formats;
  return (key, values) => {
    const id = `${locale}\u0000${key}`;
    let format = cache.get(id);
    if (format === undefined) {
      const own = catalog.messages[locale]?.[key];
      const message = own ?? catalog.messages[catalog.defaultLocale]?.[key];
      if (message === undefined) throw new Error(`No message "${key}" in locale ${catalog.defaultLocale}`);
      format = new IntlMessageFormat(message, own === undefined ? catalog.defaultLocale : locale);
      cache.set(id, format);
    }
    return String(format.format(values as Record<string, string | number | boolean | Date | null | undefined>));
  };
}

/**
 * What is wrong with a catalog, one line each (empty: nothing): a locale that is not a BCP 47 tag,
 * a default locale without messages, a message missing from (or unknown to) a declared locale, a
 * message that is not valid ICU MessageFormat. `npm run check` runs it over every shipped catalog
 * (journeys/templates/registry.test.ts, packages/email/src/page-messages.test.ts).
 */
export function catalogProblems(name: string, catalog: MessageCatalog): string[] {
  const problems: string[] = [];
  const source = catalog.messages[catalog.defaultLocale];
  if (source === undefined) return [`${name}: no messages for its default locale "${catalog.defaultLocale}"`];
  const keys = Object.keys(source);
  for (const [locale, messages] of Object.entries(catalog.messages)) {
    if (canonicalLocale(locale) === undefined) problems.push(`${name}: "${locale}" is not a BCP 47 language tag`);
    for (const key of keys) if (messages[key] === undefined) problems.push(`${name}: locale "${locale}" is missing message "${key}"`);
    for (const [key, message] of Object.entries(messages)) {
      if (!keys.includes(key)) problems.push(`${name}: locale "${locale}" has message "${key}", which "${catalog.defaultLocale}" does not`);
      try {
        new IntlMessageFormat(message, canonicalLocale(locale) ?? catalog.defaultLocale);
      } catch (error) {
        problems.push(`${name}: locale "${locale}", message "${key}" is not ICU MessageFormat: ${(error as Error).message}`);
      }
    }
  }
  return problems;
}
