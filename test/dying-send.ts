import type { EmailDeps } from '@waymark/core/emails/email-deps';
import { sendEmail, type SendEmailInput } from '@waymark/core/emails/send-email';

/**
 * A send whose attempt dies during its provider call (docs/email.md, "Exactly once"): after the
 * provider accepted the message (`accepted`), or before the request reached it. The attempt never
 * answers; its row is left claimed without a provider message id, a delivery unknown.
 *
 * Resolves once the attempt is inside the provider call (and, when `accepted`, the provider has
 * the message), however long the claim before it takes: a fixed wait raced it on a loaded box,
 * where the retry then ran beside an attempt that had not yet claimed.
 */
export async function dieDuringProviderCall(deps: EmailDeps, input: SendEmailInput, accepted: boolean): Promise<void> {
  let reachedProvider!: () => void;
  const inProviderCall = new Promise<void>((resolve) => (reachedProvider = resolve));
  const dying: EmailDeps['transport'] = {
    send: async (message) => {
      if (accepted) await deps.transport.send(message);
      reachedProvider();
      return new Promise<never>(() => undefined);
    },
  };
  const attempt = sendEmail({ ...deps, transport: dying }, input).then((result) => {
    throw new Error(`the attempt answered before its provider call: ${JSON.stringify(result)}`);
  });
  await Promise.race([inProviderCall, attempt]);
}
