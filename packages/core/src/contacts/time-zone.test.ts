import { describe, expect, it } from 'vitest';
import { normalizeImportRow } from '../imports/import-rows';
import { checkContactProperties, contactPropertiesProblem, recipientTimeZone } from './time-zone';

describe('the timezone contact property', () => {
  it("resolves a recipient's zone one way: the stored property when it names a zone, else the default", () => {
    expect(recipientTimeZone('Asia/Tokyo', 'UTC')).toBe('Asia/Tokyo');
    expect(recipientTimeZone('Mars/Olympus', 'Europe/Paris')).toBe('Europe/Paris');
    expect(recipientTimeZone(null, 'UTC')).toBe('UTC');
    expect(recipientTimeZone(undefined, undefined)).toBeUndefined();
  });

  it('takes an IANA name or null (PATCH removal) and names the field otherwise', () => {
    expect(contactPropertiesProblem({ timezone: 'Europe/Paris', plan: 'pro' }, 'contactProperties')).toBeUndefined();
    expect(contactPropertiesProblem({ timezone: null }, 'properties')).toBeUndefined();
    expect(() => checkContactProperties({ timezone: 'Paris' }, 'contactProperties')).toThrow(
      'Invalid request: contactProperties.timezone must be an IANA time zone name such as Europe/Paris, got "Paris"',
    );
    expect(() => checkContactProperties({ timezone: 1 }, 'properties')).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('an import row with a bad zone is a row error, the rest imports', () => {
    expect(normalizeImportRow({ externalId: 'u1', timezone: 'Mars/Olympus' }, 'csv')).toEqual({
      ok: false,
      error: 'properties.timezone must be an IANA time zone name such as Europe/Paris, got "Mars/Olympus"',
    });
    expect(normalizeImportRow({ externalId: 'u2', timezone: 'Asia/Tokyo' }, 'csv')).toMatchObject({
      ok: true,
      row: { properties: { timezone: 'Asia/Tokyo' } },
    });
  });
});

describe('the locale contact property', () => {
  it('takes a BCP 47 tag or null and names the field otherwise, on every write path (events, contacts, imports)', () => {
    expect(contactPropertiesProblem({ locale: 'fr-CA', timezone: 'Europe/Paris' }, 'properties')).toBeUndefined();
    expect(contactPropertiesProblem({ locale: null }, 'properties')).toBeUndefined();
    expect(() => checkContactProperties({ locale: 'fr_CA' }, 'contactProperties')).toThrow(
      'Invalid request: contactProperties.locale must be a BCP 47 language tag such as fr or fr-CA, got "fr_CA"',
    );
    expect(() => checkContactProperties({ locale: 42 }, 'properties')).toThrow(expect.objectContaining({ status: 400 }));
    expect(normalizeImportRow({ externalId: 'u3', locale: 'not a locale' }, 'csv')).toEqual({
      ok: false,
      error: 'properties.locale must be a BCP 47 language tag such as fr or fr-CA, got "not a locale"',
    });
  });
});
