import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './database-unavailable';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['reset', withCode('read ECONNRESET', 'ECONNRESET')],
    ['server shut down', withCode('terminating connection due to administrator command', '57P01')],
    ['starting up', withCode('the database system is starting up', '57P03')],
    ['connection exception class', withCode('connection failure', '08006')],
    ['pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['connection died mid-query', new Error('Connection terminated unexpectedly')],
    ['several addresses refused', new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], '')],
  ])('%s → true', (_label, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['unique violation', withCode('duplicate key value violates unique constraint', '23505')],
    ['syntax error', withCode('syntax error at or near "selec"', '42601')],
    ['plain error', new Error('boom')],
    ['the email provider connection reset (AWS SDK)', Object.assign(withCode('read ECONNRESET', 'ECONNRESET'), { $metadata: { attempts: 1 } })],
    ['not an error', 'ECONNREFUSED'],
  ])('%s → false', (_label, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
