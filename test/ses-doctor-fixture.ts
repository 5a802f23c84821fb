import { spawn } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port';
import { waitForPort } from './throwaway-services';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** SESv2 GetAccount as the SES emulator answers it (AWS_SES_ACCOUNT; its schema wants every field). */
export interface EmulatorAccount {
  EnforcementStatus: string;
  ProductionAccessEnabled: boolean;
  SendingEnabled: boolean;
  SendQuota: { Max24HourSend: number; MaxSendRate: number; SentLast24Hours: number };
}

/** SESv2 GetEmailIdentity's answer for one identity (the fields the doctor reads). */
export interface IdentityAnswer {
  VerifiedForSendingStatus: boolean;
  DkimAttributes: { SigningEnabled: boolean; Status: string; Tokens: string[]; SigningAttributesOrigin?: string };
  MailFromAttributes?: { MailFromDomain: string; MailFromDomainStatus: string; BehaviorOnMxFailure: string };
}

export interface SesDoctorFixture {
  /** SES_ENDPOINT for the doctor */
  url: string;
  close(): Promise<void>;
}

/**
 * The SES the doctor talks to in tests (never in production code): an SES emulator of the test's
 * own, started with AWS_SES_ACCOUNT so that it answers GetAccount (the shared one is started
 * without it), behind a server that answers the two calls the emulator does not implement,
 * GetEmailIdentity and ListRecommendations, from the test's fixtures, and forwards the rest.
 */
export async function startSesDoctorFixture(fixture: {
  account: EmulatorAccount;
  identities: Readonly<Record<string, IdentityAnswer>>;
  recommendations?: { Type: string; Impact: string; Description: string; Status: 'OPEN' }[];
}): Promise<SesDoctorFixture> {
  const emulatorPort = await freePort();
  const account = {
    DedicatedIpAutoWarmupEnabled: false,
    Details: {
      AdditionalContactEmailAddresses: [],
      ContactLanguage: 'EN',
      MailType: 'MARKETING',
      ReviewDetails: { CaseId: 'fixture', Status: 'GRANTED' },
      UseCaseDescription: 'fixture',
      WebsiteURL: 'https://example.com',
    },
    SuppressionAttributes: { SuppressedReasons: ['BOUNCE', 'COMPLAINT'] },
    ...fixture.account,
  };
  const emulator = spawn(
    process.execPath,
    [path.join(repoRoot, 'node_modules/aws-ses-v2-local/dist/cli.js'), '--host', '127.0.0.1', '--port', String(emulatorPort)],
    {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, AWS_SES_ACCOUNT: JSON.stringify(account) },
      stdio: 'ignore',
    },
  );
  await waitForPort(emulatorPort, 30_000);

  const json = (response: ServerResponse, status: number, body: unknown, errorType?: string) => {
    response.writeHead(status, { 'content-type': 'application/json', ...(errorType === undefined ? {} : { 'x-amzn-errortype': errorType }) });
    response.end(JSON.stringify(body));
  };
  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://fixture');
      const identity = /^\/v2\/email\/identities\/([^/]+)$/.exec(url.pathname)?.[1];
      if (incoming.method === 'GET' && identity !== undefined) {
        const answer = fixture.identities[decodeURIComponent(identity)];
        if (answer === undefined) json(response, 404, { message: `Email identity ${identity} does not exist.` }, 'NotFoundException');
        else json(response, 200, { IdentityType: 'DOMAIN', VerificationStatus: 'SUCCESS', ...answer });
        return;
      }
      if (incoming.method === 'POST' && url.pathname === '/v2/email/vdm/recommendations') {
        json(response, 200, { Recommendations: fixture.recommendations ?? [] });
        return;
      }
      const headers = Object.fromEntries(Object.entries(incoming.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
      fetch(`http://127.0.0.1:${emulatorPort}${incoming.url ?? '/'}`, {
        method: incoming.method,
        headers: { ...headers, host: `127.0.0.1:${emulatorPort}` },
        ...(incoming.method === 'GET' || incoming.method === 'HEAD' ? {} : { body: Buffer.concat(chunks) }),
      }).then(
        async (answer) => {
          response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
          response.end(Buffer.from(await answer.arrayBuffer()));
        },
        (error: Error) => json(response, 502, { message: error.message }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      emulator.kill('SIGTERM');
    },
  };
}
