import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { AppLogger } from '@waymark/core/logging/logger';
import { sdkLogger } from './sdk-logger';

/** A logger like the service's (JSON lines), written to memory. */
function capturedLogger(): { logger: AppLogger; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = pino({ customLevels: { http: 25 }, level: 'info' }, sink) as AppLogger;
  return {
    logger,
    lines: () =>
      chunks
        .join('')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe("the Temporal SDK's log as the service's", () => {
  it('writes warnings and errors as JSON lines of the service log, the error under err with its stack; drops INFO and below', () => {
    const { logger, lines } = capturedLogger();
    const sdk = sdkLogger(logger);
    sdk.info('Worker state changed', { state: 'RUNNING' });
    sdk.debug('polling');
    sdk.warn('Activity failed', { activityType: 'sendJourneyEmail', error: new Error('SES: Throttling') });
    sdk.log('ERROR', 'Worker failed', { taskQueue: 'waymark' });

    const [warned, failed, ...rest] = lines();
    expect(rest).toEqual([]);
    expect(warned).toMatchObject({
      level: 40,
      component: 'temporal-sdk',
      msg: 'Activity failed',
      activityType: 'sendJourneyEmail',
      err: { message: 'SES: Throttling' },
    });
    expect((warned!.err as { stack: string }).stack).toContain('sdk-logger.test.ts');
    expect(warned).not.toHaveProperty('error');
    expect(failed).toMatchObject({ level: 50, component: 'temporal-sdk', msg: 'Worker failed', taskQueue: 'waymark' });
  });

  it('takes a lower threshold when asked', () => {
    const { logger, lines } = capturedLogger();
    sdkLogger(logger, 'INFO').info('Worker state changed', { state: 'RUNNING' });
    expect(lines()).toEqual([expect.objectContaining({ level: 30, msg: 'Worker state changed', state: 'RUNNING' })]);
  });
});
