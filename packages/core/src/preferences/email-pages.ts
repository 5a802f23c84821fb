import type { PreferenceCategories } from '@waymark/email/preference-categories';
import { alwaysSentPage, confirmationPage, errorPage, preferenceCenterPage, questionPage } from '@waymark/email/preference-pages';
import type { EmailTokenPayload, EmailTokenSigner } from '@waymark/email/unsubscribe-token';
import type { Db } from '../db/database';
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

const INVALID_LINK: HtmlPage = {
  status: 400,
  html: errorPage({
    title: 'This link is not valid',
    message: 'The link may have expired or been copied incompletely, so we could not change your email preferences.',
  }),
};

async function verified(deps: EmailPageDeps, token: string | undefined): Promise<EmailTokenPayload | undefined> {
  if (token === undefined || token === '' || token.length > 4096) return undefined;
  return deps.tokens.verify(token);
}

function categoryLabel(categories: PreferenceCategories, key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  // a token signed before its category was removed from journeys/categories.ts still works
  return categories.find(key)?.label ?? `“${key}” emails`;
}

async function preferencesLink(deps: EmailPageDeps, payload: EmailTokenPayload): Promise<string> {
  const preferencesToken = await deps.tokens.sign({ externalId: payload.externalId, email: payload.email, action: 'unsubscribe' });
  return preferencesPageUrl(deps.publicUrl, preferencesToken);
}

/** A token naming a required category (the link in a password reset or a receipt) changes nothing. */
function requiredCategory(deps: EmailPageDeps, payload: EmailTokenPayload): { label: string } | undefined {
  const category = payload.category === undefined ? undefined : deps.categories.find(payload.category);
  return category?.required === true ? category : undefined;
}

/**
 * GET (and HEAD) /v1/email/unsubscribe: asks, changes nothing. Mail security gateways fetch every
 * link of a delivered message (docs/email.md, "Unsubscribe and preference pages"), so only the
 * page's button (a POST to the same URL) or an RFC 8058 one-click POST applies the token.
 */
export async function unsubscribeQuestionPage(deps: EmailPageDeps, token: string | undefined): Promise<HtmlPage> {
  const payload = await verified(deps, token);
  if (payload === undefined || token === undefined) return INVALID_LINK;
  const preferencesUrl = await preferencesLink(deps, payload);
  const required = requiredCategory(deps, payload);
  if (required !== undefined) return { status: 200, html: alwaysSentPage({ email: payload.email, categoryLabel: required.label, preferencesUrl }) };
  return {
    status: 200,
    html: questionPage({
      action: payload.action,
      email: payload.email,
      categoryLabel: categoryLabel(deps.categories, payload.category),
      formAction: unsubscribePageUrl(deps.publicUrl, token),
      preferencesUrl,
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
  const preferencesUrl = await preferencesLink(deps, payload);
  const required = requiredCategory(deps, payload);
  if (required !== undefined) return { status: 200, html: alwaysSentPage({ email: payload.email, categoryLabel: required.label, preferencesUrl }) };
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
      categoryLabel: categoryLabel(deps.categories, payload.category),
      undoUrl: unsubscribePageUrl(deps.publicUrl, undoToken),
      preferencesUrl,
    }),
  };
}

/** GET /v1/email/preferences: the preference center, with a toggle form per category (none for a required one). */
export async function preferenceCenter(deps: EmailPageDeps, token: string | undefined): Promise<HtmlPage> {
  const payload = await verified(deps, token);
  if (payload === undefined) return INVALID_LINK;
  const preferences = await readAddressPreferences(deps.db, payload.email);
  const recipient = { externalId: payload.externalId, email: payload.email };
  const categories = await Promise.all(
    deps.categories.all().map(async (category) => {
      if (category.required === true) return { key: category.key, label: category.label, description: category.description, required: true as const };
      const subscribed = preferences.categories[category.key] !== false;
      const toggle = await deps.tokens.sign({ ...recipient, action: subscribed ? 'unsubscribe' : 'resubscribe', category: category.key });
      return {
        key: category.key,
        label: category.label,
        description: category.description,
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
    }),
  };
}
