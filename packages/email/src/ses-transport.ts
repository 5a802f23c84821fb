import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';

export interface OutgoingEmail {
  from: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  headers: { name: string; value: string }[];
  /** tags published with SES events (configuration set event destinations) */
  tags?: { name: string; value: string }[];
}

export interface EmailTransport {
  /** Sends one message; resolves with the provider's message id. */
  send(email: OutgoingEmail): Promise<{ messageId: string }>;
}

export interface SesTransportOptions {
  region: string;
  endpoint?: string | undefined;
  configurationSet?: string | undefined;
  /** EMAIL_PROVIDER_API_KEY; see `sesCredentials` */
  apiKey: string;
}

/**
 * EMAIL_PROVIDER_API_KEY of the form `ACCESS_KEY_ID:SECRET_ACCESS_KEY` gives static credentials;
 * any other value (e.g. `aws`) leaves credentials to the standard AWS chain (environment, shared
 * config, instance or task role), which is what production on AWS should use.
 */
export function sesCredentials(apiKey: string): { accessKeyId: string; secretAccessKey: string } | undefined {
  const separator = apiKey.indexOf(':');
  if (separator <= 0 || separator === apiKey.length - 1) return undefined;
  return { accessKeyId: apiKey.slice(0, separator), secretAccessKey: apiKey.slice(separator + 1) };
}

/** The SES client of the send path and of the quota reader (ses-send-quota.ts). */
export function createSesClient(options: Omit<SesTransportOptions, 'configurationSet'>): SESv2Client {
  const credentials = sesCredentials(options.apiKey);
  return new SESv2Client({
    region: options.region,
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...(credentials === undefined ? {} : { credentials }),
    // Temporal retries the whole send with backoff; SDK retries underneath would multiply attempts.
    maxAttempts: 1,
  });
}

export function createSesTransport(options: SesTransportOptions): EmailTransport {
  const client = createSesClient(options);
  return {
    async send(email) {
      const result = await client.send(
        new SendEmailCommand({
          FromEmailAddress: email.from,
          Destination: { ToAddresses: [email.to] },
          ...(options.configurationSet === undefined ? {} : { ConfigurationSetName: options.configurationSet }),
          ...(email.tags === undefined || email.tags.length === 0 ? {} : { EmailTags: email.tags.map((tag) => ({ Name: tag.name, Value: tag.value })) }),
          Content: {
            Simple: {
              Subject: { Data: email.subject, Charset: 'UTF-8' },
              Body: { Html: { Data: email.html, Charset: 'UTF-8' }, Text: { Data: email.text, Charset: 'UTF-8' } },
              Headers: email.headers.map((header) => ({ Name: header.name, Value: header.value })),
            },
          },
        }),
      );
      if (result.MessageId === undefined) throw new Error('SES returned no MessageId');
      return { messageId: result.MessageId };
    },
  };
}
