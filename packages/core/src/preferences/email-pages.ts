import { localizedCategory, type PreferenceCategories } from '@waymark/email/preference-categories';
import { alwaysSentPage, confirmationPage, invalidLinkPage, preferenceCenterPage, questionPage } from '@waymark/email/preference-pages';
import type { EmailTokenPayload, EmailTokenSigner } from '@waymark/email/unsubscribe-token';
import type { Db } from '../db/database';
import { contactLocale } from '../contacts/locale';
import { preferencesPageUrl, unsubscribePageUrl } from './page-urls';
import { applyTokenAction, readAddressPreferences } from './apply-token-action';
import type { UnsubscribeSource } from './outbound-events';

export interface EmailPageDeps {
  db: Db;
  tokens: EmailTokenSigner;
  publicUrl: string;
  /** the deployment's categories (journeys/categories.ts): the preference center lists each */
  categories: PreferenceCategories;
}

export interface HtmlPage {
  status: 200 | 400;
  html: string;
}

const INVALID_LINK: HtmlPage = { status: 400, html: invalidLinkPage() };

async function verified(deps: EmailPageDeps, token: string | undefined): Promise<EmailTokenPayload | undefined> {
  if (token === undefined || token === '' || token.length > 4096) return undefined;
  return deps.tokens.verify(token);
}

function categoryLabel(categories: PreferenceCategories, key: string | undefined, locale: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  const category = categories.find(key);
  // a token signed before its category was removed from journeys/categories.ts still works
  return category === undefined ? `“${key}” emails` : localizedCategory(category, locale).label;
}

/** The language of the token's contact (docs/email.md, "Languages"): their `locale` property, else English. */
function pageLocale(deps: EmailPageDeps, payload: EmailTokenPayload): Promise<string | undefined> {
  return contactLocale(deps.db, { userId: payload.externalId === '' ? undefined : payload.externalId, email: payload.email });
}

async function preferencesLink(deps: EmailPageDeps, payload: EmailTokenPayload): Promise<string> {
  const preferencesToken = await deps.tokens.sign({ externalId: payload.externalId, email: payload.email, action: 'unsubscribe' });
  return preferencesPageUrl(deps.publicUrl, preferencesToken);
}

/** A token naming a required category (the link in a password reset or a receipt) changes nothing. */
function requiredCategory(deps: EmailPageDeps, payload: EmailTokenPayload, locale: string | undefined): { label: string } | undefined {
  const category = payload.category === undefined ? undefined : deps.categories.find(payload.category);
  return category?.required === true ? localizedCategory(category, locale) : undefined;
}

/**
 * GET (and HEAD) /v1/email/unsubscribe: asks, changes nothing. Mail security gateways fetch every
 * link of a delivered message (docs/email.md, "Unsubscribe and preference pages"), so only the
 * page's button (a POST to the same URL) or an RFC 8058 one-click POST applies the token.
 */
export async function unsubscribeQuestionPage(deps: EmailPageDeps, token: string | undefined): Promise<HtmlPage> {
  const payload = await verified(deps, token);
  if (payload === undefined || token === undefined) return INVALID_LINK;
  const [preferencesUrl, locale] = await Promise.all([preferencesLink(deps, payload), pageLocale(deps, payload)]);
  const required = requiredCategory(deps, payload, locale);
  if (required !== undefined) return { status: 200, html: alwaysSentPage({ email: payload.email, categoryLabel: required.label, preferencesUrl, locale }) };
  return {
    status: 200,
    html: questionPage({
      action: payload.action,
      email: payload.email,
      categoryLabel: categoryLabel(deps.categories, payload.category, locale),
      formAction: unsubscribePageUrl(deps.publicUrl, token),
      preferencesUrl,
      locale,
    }),
  };
}

/**
 * POST /v1/email/unsubscribe: the page's button, a preference center toggle or RFC 8058 one-click.
 * Applies the token's action and confirms, with an Undo button (the opposite action, signed now).
 * A token naming a required category changes nothing: those emails are sent because the person
 * asked for them, and the page says so.
 */
export async function unsubscribeLinkPage(deps: EmailPageDeps, token: string | undefined, source: UnsubscribeSource): Promise<HtmlPage> {
  const payload = await verified(deps, token);
  if (payload === undefined) return INVALID_LINK;
  const [preferencesUrl, locale] = await Promise.all([preferencesLink(deps, payload), pageLocale(deps, payload)]);
  const required = requiredCategory(deps, payload, locale);
  if (required !== undefined) return { status: 200, html: alwaysSentPage({ email: payload.email, categoryLabel: required.label, preferencesUrl, locale }) };
  await applyTokenAction(deps.db, payload, source);
  const undoToken = await deps.tokens.sign({
    externalId: payload.externalId,
    email: payload.email,
    action: payload.action === 'unsubscribe' ? 'resubscribe' : 'unsubscribe',
    ...(payload.category === undefined ? {} : { category: payload.category }),
  });
  return {
    status: 200,
    html: confirmationPage({
      action: payload.action,
      email: payload.email,
      categoryLabel: categoryLabel(deps.categories, payload.category, locale),
      undoUrl: unsubscribePageUrl(deps.publicUrl, undoToken),
      preferencesUrl,
      locale,
    }),
  };
}

/** GET /v1/email/preferences: the preference center, with a toggle form per category (none for a required one). */
export async function preferenceCenter(deps: EmailPageDeps, token: string | undefined): Promise<HtmlPage> {
  const payload = await verified(deps, token);
  if (payload === undefined) return INVALID_LINK;
  const [preferences, locale] = await Promise.all([readAddressPreferences(deps.db, payload.email), pageLocale(deps, payload)]);
  const recipient = { externalId: payload.externalId, email: payload.email };
  const categories = await Promise.all(
    deps.categories.all().map(async (category) => {
      const text = localizedCategory(category, locale);
      if (category.required === true) return { key: category.key, ...text, required: true as const };
      const subscribed = preferences.categories[category.key] !== false;
      const toggle = await deps.tokens.sign({ ...recipient, action: subscribed ? 'unsubscribe' : 'resubscribe', category: category.key });
      return {
        key: category.key,
        ...text,
        required: false as const,
        subscribed,
        toggleUrl: unsubscribePageUrl(deps.publicUrl, toggle),
      };
    }),
  );
  const globalToken = await deps.tokens.sign({ ...recipient, action: preferences.unsubscribedAll ? 'resubscribe' : 'unsubscribe' });
  return {
    status: 200,
    html: preferenceCenterPage({
      email: payload.email,
      suppressed: preferences.suppressed,
      unsubscribedAll: preferences.unsubscribedAll,
      globalToggleUrl: unsubscribePageUrl(deps.publicUrl, globalToken),
      categories,
      locale,
    }),
  };
}
