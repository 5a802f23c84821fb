import { randomUUID } from 'node:crypto';
import { eventually } from './eventually';
import { integrationEnv } from './test-env';

/** What aws-ses-v2-local keeps per email (GET /store). */
export interface EmulatorEmail {
  messageId: string;
  from: string;
  destination: { to: string[] };
  subject: string;
  body: { html?: string; text?: string };
  headers?: { name: string; value: string }[];
}

/** A recipient no other test (or developer) uses, so the shared emulator store can be filtered by it. */
export function uniqueAddress(label = 'rcpt'): string {
  return `${label}-${randomUUID().slice(0, 8)}@waymark-test.example`;
}

/** Every email the emulator holds for an address (the store is shared: never cleared by tests). */
export async function emailsTo(address: string): Promise<EmulatorEmail[]> {
  const response = await fetch(`${integrationEnv().SES_ENDPOINT}/store`);
  const store = (await response.json()) as { emails: EmulatorEmail[] };
  return store.emails.filter((email) => email.destination.to.some((to) => to.toLowerCase() === address.toLowerCase()));
}

/** Every email the emulator holds for any of these addresses (one read of the store). */
export async function emailsToAny(addresses: readonly string[]): Promise<EmulatorEmail[]> {
  const wanted = new Set(addresses.map((address) => address.toLowerCase()));
  const response = await fetch(`${integrationEnv().SES_ENDPOINT}/store`);
  const store = (await response.json()) as { emails: EmulatorEmail[] };
  return store.emails.filter((email) => email.destination.to.some((to) => wanted.has(to.toLowerCase())));
}

export function header(email: EmulatorEmail, name: string): string | undefined {
  return email.headers?.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value;
}

/** Polls until `probe` returns a value (not undefined) or the timeout passes. */
export function waitFor<T>(probe: () => Promise<T | undefined>, options: { timeoutMs?: number; what?: string } = {}): Promise<T> {
  return eventually(probe, (value): value is T => value !== undefined, { intervalMs: 200, ...options });
}
