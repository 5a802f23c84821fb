import { GetAccountCommand } from '@aws-sdk/client-sesv2';
import { createSesClient, type SesTransportOptions } from './ses-transport';

/**
 * The account's maximum send rate (messages per second) from SESv2 `GetAccount`
 * (`SendQuota.MaxSendRate`), or undefined when SES answered without one. Throws what SES threw:
 * an endpoint without `GetAccount` (the local emulator answers 400 "Account not found") or a role
 * without `ses:GetAccount` is the caller's to report.
 */
export function createSesSendQuotaReader(options: Omit<SesTransportOptions, 'configurationSet'>): () => Promise<number | undefined> {
  const client = createSesClient(options);
  return async () => {
    const account = await client.send(new GetAccountCommand({}));
    const rate = account.SendQuota?.MaxSendRate;
    return rate !== undefined && rate > 0 ? rate : undefined;
  };
}
