import { GetAccountCommand, GetEmailIdentityCommand, ListRecommendationsCommand, NotFoundException } from '@aws-sdk/client-sesv2';
import { createSesClient, type SesTransportOptions } from './ses-transport';

/** What the deliverability doctor reads of the SES account (SESv2 GetAccount). */
export interface SesAccountStatus {
  productionAccess: boolean;
  sendingEnabled: boolean;
  /** HEALTHY, PROBATION (under review) or SHUTDOWN (sending paused) */
  enforcementStatus: string | undefined;
  max24HourSend: number | undefined;
  sentLast24Hours: number | undefined;
  maxSendRate: number | undefined;
}

/** A verified (or pending) SES identity (SESv2 GetEmailIdentity): its DKIM and its custom MAIL FROM. */
export interface SesIdentity {
  name: string;
  verifiedForSending: boolean;
  dkim: { signingEnabled: boolean; status: string | undefined; tokens: string[]; origin: string | undefined };
  mailFrom: { domain: string; status: string | undefined } | undefined;
}

/** An open Virtual Deliverability Manager recommendation (SESv2 ListRecommendations). */
export interface SesRecommendation {
  type: string;
  impact: string | undefined;
  resource: string | undefined;
  description: string;
}

export interface SesAccountReader {
  account(): Promise<SesAccountStatus>;
  /** the identity of that name, or undefined when SES has none */
  identity(name: string): Promise<SesIdentity | undefined>;
  /** the open recommendations (VDM must be on; SES answers an error otherwise) */
  recommendations(): Promise<SesRecommendation[]>;
}

/** The SES reads of the doctor, on the client of the send path (same region, endpoint and credentials). */
export function createSesAccountReader(options: Omit<SesTransportOptions, 'configurationSet'>): SesAccountReader {
  const client = createSesClient(options);
  return {
    async account() {
      const account = await client.send(new GetAccountCommand({}));
      return {
        productionAccess: account.ProductionAccessEnabled === true,
        sendingEnabled: account.SendingEnabled === true,
        enforcementStatus: account.EnforcementStatus,
        max24HourSend: account.SendQuota?.Max24HourSend,
        sentLast24Hours: account.SendQuota?.SentLast24Hours,
        maxSendRate: account.SendQuota?.MaxSendRate,
      };
    },
    async identity(name) {
      try {
        const identity = await client.send(new GetEmailIdentityCommand({ EmailIdentity: name }));
        const mailFromDomain = identity.MailFromAttributes?.MailFromDomain;
        return {
          name,
          verifiedForSending: identity.VerifiedForSendingStatus === true,
          dkim: {
            signingEnabled: identity.DkimAttributes?.SigningEnabled === true,
            status: identity.DkimAttributes?.Status,
            tokens: identity.DkimAttributes?.Tokens ?? [],
            origin: identity.DkimAttributes?.SigningAttributesOrigin,
          },
          mailFrom:
            mailFromDomain === undefined || mailFromDomain === ''
              ? undefined
              : { domain: mailFromDomain.toLowerCase(), status: identity.MailFromAttributes?.MailFromDomainStatus },
        };
      } catch (error) {
        if (error instanceof NotFoundException) return undefined;
        throw error;
      }
    },
    async recommendations() {
      const found: SesRecommendation[] = [];
      let nextToken: string | undefined;
      do {
        const page = await client.send(new ListRecommendationsCommand({ Filter: { STATUS: 'OPEN' }, NextToken: nextToken, PageSize: 100 }));
        for (const item of page.Recommendations ?? [])
          found.push({ type: item.Type ?? 'unknown', impact: item.Impact, resource: item.ResourceArn, description: item.Description ?? '' });
        nextToken = page.NextToken;
      } while (nextToken !== undefined && found.length < 1000);
      return found;
    },
  };
}
