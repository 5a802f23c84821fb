/**
 * The local stack's SES event publisher (scripts/ses-events/publisher.ts), started by
 * `scripts/stack.sh up` in front of the SES emulator:
 *
 *   SES_EVENTS_PORT=8006 SES_EMULATOR_URL=http://127.0.0.1:8005 \
 *   SES_EVENTS_DESTINATION='waymark-local=http://sns:<secret>@127.0.0.1:3002/v1/webhooks/email-provider' \
 *   tsx scripts/ses-events.ts
 *
 * SES_EVENTS_DESTINATION: `<configuration set>=<subscription URL>`, several separated by spaces.
 */
import { startSesEventPublisher } from './ses-events/publisher';

function destinations(value: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const entry of value.split(/\s+/).filter((item) => item !== '')) {
    const separator = entry.indexOf('=');
    if (separator <= 0) throw new Error(`SES_EVENTS_DESTINATION: '${entry}' is not <configuration set>=<url>`);
    result[entry.slice(0, separator)] = entry.slice(separator + 1);
  }
  return result;
}

const publisher = await startSesEventPublisher({
  emulatorUrl: process.env.SES_EMULATOR_URL ?? 'http://127.0.0.1:8005',
  destinations: destinations(process.env.SES_EVENTS_DESTINATION ?? ''),
  port: Number(process.env.SES_EVENTS_PORT ?? 8006),
  host: '127.0.0.1',
  region: process.env.SES_REGION ?? 'us-east-1',
  log: (line) => console.warn(line),
});
console.info(`ses-events: SES endpoint ${publisher.url} (passes on to the emulator); signing certificates under ${publisher.certificateUrlPrefix}`);
const stop = () => void publisher.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
