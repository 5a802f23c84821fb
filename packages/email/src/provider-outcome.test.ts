import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderOutcomeUnknownError } from './provider-outcome';
import { createSesTransport } from './ses-transport';

const email = { from: 'from@example.com', to: 'to@example.com', subject: 'Hi', html: '<p>Hi</p>', text: 'Hi', headers: [] };

/**
 * docs/email.md, "Exactly once": the SES transport (the real SDK client) against a local server
 * that breaks the call in each way. Only a connection that breaks after the request went out leaves
 * the outcome unknown; an answer (even an error) or a connection never made means not accepted.
 */
describe('the SES transport tells a call that broke without an answer from a refusal', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
    server = undefined;
  });

  async function transportTo(handle: Parameters<typeof createServer>[1]) {
    server = createServer(handle);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return createSesTransport({ region: 'us-east-1', endpoint, apiKey: 'AKIDTEST:secret' });
  }

  it('the request read whole, then the connection reset: the outcome is unknown', async () => {
    const transport = await transportTo((request) => {
      request.resume();
      request.on('end', () => request.socket.destroy());
    });
    await expect(transport.send(email)).rejects.toBeInstanceOf(ProviderOutcomeUnknownError);
  });

  it('an error answer (a 500 from SES) is a refusal, retried as before', async () => {
    const transport = await transportTo((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'internal' })));
    });
    const error = await transport.send(email).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ProviderOutcomeUnknownError);
  });

  it('a connection never made (refused) is not unknown', async () => {
    const transport = await transportTo(() => undefined);
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    const error = await transport.send(email).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'ECONNREFUSED' });
    expect(error).not.toBeInstanceOf(ProviderOutcomeUnknownError);
  });
});
