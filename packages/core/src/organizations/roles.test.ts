import { describe, expect, it } from 'vitest';
import { abilitiesOfRole } from './roles';

describe('abilitiesOfRole', () => {
  it('follows the scope of each role: owner and admin administer, editor manages journeys, viewer and no organization only read', () => {
    expect(abilitiesOfRole('owner')).toEqual({ manageJourneys: true, administer: true });
    expect(abilitiesOfRole('admin')).toEqual({ manageJourneys: true, administer: true });
    expect(abilitiesOfRole('editor')).toEqual({ manageJourneys: true, administer: false });
    expect(abilitiesOfRole('viewer')).toEqual({ manageJourneys: false, administer: false });
    expect(abilitiesOfRole(undefined)).toEqual({ manageJourneys: false, administer: false });
  });
});
