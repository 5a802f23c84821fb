import { describe, expect, it } from 'vitest';
import { hasScope, parseScopes, type Scope } from './scopes';

describe('hasScope', () => {
  const cases: [Scope[], Scope, boolean][] = [
    [['read'], 'read', true],
    [['read'], 'journey-admin', false],
    [['read'], 'ingest', false],
    [['journey-admin'], 'read', true],
    [['journey-admin'], 'journey-admin', true],
    [['journey-admin'], 'full-admin', false],
    [['journey-admin'], 'ingest', false],
    [['full-admin'], 'read', true],
    [['full-admin'], 'journey-admin', true],
    [['full-admin'], 'full-admin', true],
    [['full-admin'], 'ingest', true],
    [['ingest'], 'ingest', true],
    [['ingest'], 'read', false],
    [['read', 'ingest'], 'read', true],
    [['read', 'ingest'], 'ingest', true],
    [['read', 'ingest'], 'journey-admin', false],
    [[], 'read', false],
  ];
  it.each(cases)('%j satisfies %s: %s', (granted, required, expected) => {
    expect(hasScope(granted, required)).toBe(expected);
  });

  it('ignores unknown stored scope values', () => {
    expect(parseScopes(['read', 'superuser'])).toEqual(['read']);
  });
});
