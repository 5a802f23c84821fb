import type { TemplateRegistry } from '@waymark/email/email-template';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import { badRequest } from '../errors/app-error';

/**
 * What a caller (a key's POST /v1/emails, a broadcast, a test send) may ask of a template, on top
 * of what the send path checks for every send: 400 naming the template or the category otherwise.
 * - A template the service sends itself (`systemOnly`: the reset and invitation emails) is not
 *   theirs to send: its links would be the caller's, under the installation's name.
 * - A required category passes every opt-out (docs/email.md, "Preference categories"): only a
 *   template that declares it may be sent under it, or a caller could skip any unsubscribe.
 */
export function checkCallerSend(
  deps: { templates: Pick<TemplateRegistry, 'find'>; categories: Pick<PreferenceCategories, 'required'> },
  input: { templateKey: string; category?: string | undefined },
  path = 'templateKey',
): void {
  const template = deps.templates.find(input.templateKey);
  // an unknown template is the send path's own 400
  if (template === undefined) return;
  if (template.systemOnly === true) throw badRequest(`${path}: template '${input.templateKey}' is sent only by Waymark itself`);
  const category = input.category;
  if (category !== undefined && category !== template.category && deps.categories.required(category))
    throw badRequest(
      `category: '${category}' is a required category (sent whatever the recipient's opt-outs) that template '${input.templateKey}' does not declare`,
    );
}
