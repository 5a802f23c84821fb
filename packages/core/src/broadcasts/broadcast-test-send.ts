import { randomUUID } from 'node:crypto';
import type { EmailDeps } from '../emails/email-deps';
import { sendEmail } from '../emails/send-email';
import type { JsonObject } from '../db/schema';
import { badRequest } from '../errors/app-error';
import { previewLinks, renderTemplatePreview } from '../templates/template-catalog';
import type { BroadcastVariant } from './broadcast-schemas';
import { getBroadcastTemplate, recipientTemplateData } from './broadcast-template-data';
import { getBroadcastRow } from './broadcasts';
import { propertiesLocale } from '../contacts/locale';
import { providerRefusal } from '../emails/provider-refusal';

export interface BroadcastTestResult {
  email: string;
  status: 'sent' | 'skipped' | 'failed';
  emailId: string | null;
  reason: string | null;
}

/**
 * POST …/test: a copy of the broadcast (its first variant, if it has variants) to each address,
 * subject marked `[Test]`, through the one send path (tracking and footer links as recipients get
 * them) but not tagged with the broadcast, so it is not counted. Props `data` lacks come from the
 * contact with that address, else the template's sample data.
 */
export async function sendBroadcastTest(email: EmailDeps, id: string, addresses: readonly string[]): Promise<BroadcastTestResult[]> {
  const row = await getBroadcastRow(email.db, id);
  const variant = (row.variants as unknown as BroadcastVariant[] | null)?.[0];
  const templateKey = variant?.templateKey ?? row.templateKey;
  const template = getBroadcastTemplate(email.templates, templateKey, 'templateKey');
  const results: BroadcastTestResult[] = [];
  for (const address of addresses) {
    const contact = await email.db
      .selectFrom('contacts')
      .select('properties')
      .where((eb) => eb(eb.fn('lower', ['email']), '=', address.toLowerCase()))
      .orderBy('lastSeenAt', 'desc')
      .executeTakeFirst();
    const base: JsonObject = { ...row.data, ...(variant?.data as JsonObject | undefined) };
    const data = recipientTemplateData(template, base, contact?.properties ?? (template.sampleData as JsonObject));
    if (data === undefined) throw badRequest(`Template '${templateKey}' needs props that neither data nor ${address}'s contact properties give`);
    // the contact's language, as the broadcast itself would send it
    const locale = propertiesLocale(contact?.properties);
    const subject =
      variant?.subject ?? row.subject ?? (await renderTemplatePreview(email.templates, templateKey, data, previewLinks(email.publicUrl), locale)).subject;
    let result;
    try {
      result = await sendEmail(email, {
        templateKey,
        to: address,
        data,
        category: row.category,
        subject: `[Test] ${subject}`,
        locale,
        idempotencyKey: `broadcast-test:${row.id}:${randomUUID()}`,
      });
    } catch (error) {
      // the provider refused or could not be reached: that address's answer, the others still tried
      const refusal = providerRefusal(error);
      if (refusal === undefined) throw error;
      results.push({ email: address, status: 'failed', emailId: null, reason: refusal.message });
      continue;
    }
    results.push({
      email: address,
      status: result.status === 'deferred' ? 'skipped' : result.status,
      emailId: result.emailSendId ?? null,
      reason: result.status === 'sent' ? null : result.reason,
    });
  }
  return results;
}
