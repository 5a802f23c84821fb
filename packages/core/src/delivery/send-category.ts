import { DEFAULT_EMAIL_CATEGORY } from '@waymark/email/email-template';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import type { GateCategory } from '../preferences/send-gate';

/**
 * The one category resolution of a send (docs/contributing.md, "One home per rule"): the first
 * category named for it, most specific first (a journey step's own, then its journey's; a
 * caller's, then its template's), else `journey`, what a journey email goes under when nothing
 * names one. Every send path, the entry guard and the test kit's world resolve it here, so a send
 * is never gated under one category and counted under another.
 */
export function sendCategoryKey(...named: readonly (string | undefined)[]): string {
  return named.find((key) => key !== undefined) ?? DEFAULT_EMAIL_CATEGORY;
}

/**
 * sendCategoryKey as the deployment declares it (its `required`): what the gate, caps, holdouts
 * and holds judge by. A key no longer declared is judged as a category a person may leave.
 */
export function sendCategory(categories: Pick<PreferenceCategories, 'find'>, ...named: readonly (string | undefined)[]): GateCategory {
  const key = sendCategoryKey(...named);
  return categories.find(key) ?? key;
}
