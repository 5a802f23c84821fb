import { expect } from 'vitest';
import type { EmailDeps } from '@waymark/core/emails/email-deps';
import { sendEmail, type SendEmailInput } from '@waymark/core/emails/send-email';

/**
 * A send whose attempt dies during its provider call (docs/email.md, "Exactly once"): after the
 * provider accepted the message (`accepted`), or before the request reached it. The attempt never
 * answers; its row is left claimed without a provider message id, a delivery unknown.
 */
export async function dieDuringProviderCall(deps: EmailDeps, input: SendEmailInput, accepted: boolean): Promise<void> {
  const dying: EmailDeps['transport'] = {
    send: async (message) => {
      if (accepted) await deps.transport.send(message);
      return new Promise<never>(() => undefined);
    },
  };
  const first = sendEmail({ ...deps, transport: dying }, input);
  await expect(Promise.race([first, new Promise((resolve) => setTimeout(() => resolve('timeout'), 1_500))])).resolves.toBe('timeout');
}
