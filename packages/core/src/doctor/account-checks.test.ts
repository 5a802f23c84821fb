import { describe, expect, it } from 'vitest';
import type { SesAccountReader, SesAccountStatus, SesRecommendation } from '@waymark/email/ses-account';
import { sesAccountChecks } from './account-checks';

const healthy: SesAccountStatus = {
  productionAccess: true,
  sendingEnabled: true,
  enforcementStatus: 'HEALTHY',
  max24HourSend: 50_000,
  sentLast24Hours: 1_000,
  maxSendRate: 14,
};

function reader(account: Partial<SesAccountStatus> | Error, recommendations: SesRecommendation[] | Error = []): SesAccountReader {
  return {
    account: async () => {
      if (account instanceof Error) throw account;
      return { ...healthy, ...account };
    },
    identity: async () => undefined,
    recommendations: async () => {
      if (recommendations instanceof Error) throw recommendations;
      return recommendations;
    },
  };
}

const statusOf = async (ses: SesAccountReader) => Object.fromEntries((await sesAccountChecks(ses)).map((check) => [check.id, check.status]));

describe('the SES account checks (GetAccount, ListRecommendations)', () => {
  it('a healthy production account with no recommendations passes', async () => {
    expect(await statusOf(reader({}))).toEqual({
      'ses.account.status': 'pass',
      'ses.account.production': 'pass',
      'ses.account.quota': 'pass',
      'ses.recommendations': 'pass',
    });
  });

  it('fails under review (PROBATION), when paused (SHUTDOWN or sending disabled) and in the sandbox; warns near the quota', async () => {
    expect((await statusOf(reader({ enforcementStatus: 'PROBATION' })))['ses.account.status']).toBe('fail');
    expect((await statusOf(reader({ enforcementStatus: 'SHUTDOWN' })))['ses.account.status']).toBe('fail');
    expect((await statusOf(reader({ sendingEnabled: false })))['ses.account.status']).toBe('fail');
    expect((await statusOf(reader({ productionAccess: false })))['ses.account.production']).toBe('fail');
    expect((await statusOf(reader({ sentLast24Hours: 45_000 })))['ses.account.quota']).toBe('warn');
  });

  it('a high-impact recommendation fails, a low one warns; an unreadable source warns saying why', async () => {
    const dmarc = { type: 'DMARC', impact: 'HIGH', resource: undefined, description: 'No DMARC record' };
    expect((await statusOf(reader({}, [dmarc])))['ses.recommendations']).toBe('fail');
    expect((await statusOf(reader({}, [{ ...dmarc, impact: 'LOW' }])))['ses.recommendations']).toBe('warn');
    const denied = await sesAccountChecks(reader(new Error('not authorized to perform ses:GetAccount'), new Error('VDM is off')));
    expect(denied).toEqual([
      expect.objectContaining({
        id: 'ses.account.status',
        status: 'warn',
        detail: 'could not read the SES account (GetAccount): not authorized to perform ses:GetAccount',
      }),
      expect.objectContaining({ id: 'ses.recommendations', status: 'warn', detail: expect.stringContaining('VDM is off') }),
    ]);
  });
});
