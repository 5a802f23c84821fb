import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isAppError } from '../errors/app-error';
import { createDeadLetterRetryHandlers, parseDeadLetterPayload } from './retry-handlers';

describe('DLQ retry handler registry', () => {
  it('finds the handler its owner registered, and nothing for a source nobody registered', () => {
    const handlers = createDeadLetterRetryHandlers();
    const email = async () => undefined;
    handlers.register('email', email);
    expect(handlers.find('email')).toBe(email);
    expect(handlers.find('import')).toBeUndefined();
    expect(handlers.find('no-such-source')).toBeUndefined();
  });

  it('refuses a second handler for the same source (a wiring mistake, caught at start-up)', () => {
    const handlers = createDeadLetterRetryHandlers();
    handlers.register('journey', async () => undefined);
    expect(() => handlers.register('journey', async () => undefined)).toThrow(/already registered/);
  });

  it('parses a payload against its owner schema, else a 409 naming what was expected', () => {
    const schema = z.object({ name: z.string().min(1) });
    expect(parseDeadLetterPayload(schema, { name: 'signed_up' }, 'event')).toEqual({ name: 'signed_up' });
    try {
      parseDeadLetterPayload(schema, { nothing: true }, 'event');
      expect.unreachable('an invalid payload must throw');
    } catch (error) {
      expect(isAppError(error) && error.status).toBe(409);
      expect((error as Error).message).toMatch(/^DLQ payload is not a retryable event: /);
    }
  });
});
