/** One finding of the deliverability doctor (docs/email.md, "Deliverability"). */
export interface DoctorCheck {
  /** stable, e.g. `dns.spf`, `ses.account`, `rates.provider.gmail` */
  id: string;
  /** fail: mail is or will be refused, or SES acts on the account; warn: a risk, or not known */
  status: 'pass' | 'warn' | 'fail';
  /** what was found, with the numbers */
  detail: string;
  /** what to do about it (null on a pass) */
  fix: string | null;
}

export const pass = (id: string, detail: string): DoctorCheck => ({ id, status: 'pass', detail, fix: null });
export const warn = (id: string, detail: string, fix: string): DoctorCheck => ({ id, status: 'warn', detail, fix });
export const fail = (id: string, detail: string, fix: string): DoctorCheck => ({ id, status: 'fail', detail, fix });

/**
 * Why a read failed, in a line: an endpoint that answers something other than SESv2 JSON (an
 * emulator without the call, a proxy's error page) makes the SDK throw a long deserialization
 * message, so it is named by its HTTP status instead.
 */
export function readFailure(error: unknown): string {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const message = error instanceof Error ? error.message : String(error);
  if (status !== undefined && /Deserialization error/i.test(message)) return `HTTP ${status}, not an SES answer (does SES_ENDPOINT implement this call?)`;
  return message;
}

/** A check whose source could not be read is not known: a warning naming why, never a pass or a fail. */
export async function unlessUnreadable(id: string, source: string, run: () => Promise<DoctorCheck[]>): Promise<DoctorCheck[]> {
  try {
    return await run();
  } catch (error) {
    return [warn(id, `could not read ${source}: ${readFailure(error)}`, `make ${source} reachable from this server, then run the doctor again`)];
  }
}
