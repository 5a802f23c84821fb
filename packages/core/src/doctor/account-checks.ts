import type { SesAccountReader } from '@waymark/email/ses-account';
import { fail, pass, unlessUnreadable, warn, type DoctorCheck } from './doctor-check';

const AWS_CONSOLE = 'the SES console (Account dashboard)';

/** The SES account (GetAccount): production access, enforcement status, quota and send rate. */
async function accountChecks(ses: SesAccountReader): Promise<DoctorCheck[]> {
  const account = await ses.account();
  const quota = `${account.sentLast24Hours ?? '?'} of ${account.max24HourSend ?? '?'} sent in 24 h, ${account.maxSendRate ?? '?'}/s`;
  const enforcement = (account.enforcementStatus ?? 'HEALTHY').toUpperCase();
  const status =
    enforcement === 'SHUTDOWN' || !account.sendingEnabled
      ? fail(
          'ses.account.status',
          `SES sending is ${account.sendingEnabled ? 'enabled' : 'disabled'}, enforcement status ${enforcement}: SES paused the account`,
          `read the case in ${AWS_CONSOLE}, fix its cause (list hygiene, consent) and answer it`,
        )
      : enforcement === 'PROBATION'
        ? fail(
            'ses.account.status',
            'enforcement status PROBATION: SES put the account under review for its bounce or complaint rate',
            `read the review in ${AWS_CONSOLE}; bring the rates under 5 % bounces and 0.1 % complaints before the review ends`,
          )
        : pass('ses.account.status', `sending enabled, enforcement status ${enforcement}`);
  const production = account.productionAccess
    ? pass('ses.account.production', `production access; ${quota}`)
    : fail(
        'ses.account.production',
        `the account is in the SES sandbox: it sends only to verified addresses (${quota})`,
        `request production access in ${AWS_CONSOLE} (Request production access)`,
      );
  const used = account.max24HourSend !== undefined && account.max24HourSend > 0 ? (account.sentLast24Hours ?? 0) / account.max24HourSend : 0;
  const headroom =
    used >= 0.8
      ? warn(
          'ses.account.quota',
          `${Math.round(used * 100)} % of the 24-hour quota used (${quota})`,
          'ask SES for a higher sending quota before a broadcast, or spread it (docs/broadcasts.md)',
        )
      : pass('ses.account.quota', quota);
  return [status, production, headroom];
}

/** The open Virtual Deliverability Manager recommendations (ListRecommendations): one check, high impact fails. */
async function recommendationChecks(ses: SesAccountReader): Promise<DoctorCheck[]> {
  const open = await ses.recommendations();
  if (open.length === 0) return [pass('ses.recommendations', 'no open SES recommendations')];
  const listed = open.map((item) => `${item.type}${item.impact === undefined ? '' : ` (${item.impact.toLowerCase()})`}: ${item.description}`).join('; ');
  const high = open.some((item) => item.impact === 'HIGH');
  return [
    (high ? fail : warn)(
      'ses.recommendations',
      `${open.length} open SES recommendation${open.length === 1 ? '' : 's'}: ${listed}`,
      'follow each one in the SES console (Virtual Deliverability Manager → Recommendations)',
    ),
  ];
}

export async function sesAccountChecks(ses: SesAccountReader): Promise<DoctorCheck[]> {
  return [
    ...(await unlessUnreadable('ses.account.status', 'the SES account (GetAccount)', () => accountChecks(ses))),
    ...(await unlessUnreadable('ses.recommendations', 'SES recommendations (ListRecommendations; needs Virtual Deliverability Manager)', () =>
      recommendationChecks(ses),
    )),
  ];
}
