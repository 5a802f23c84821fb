import { describe, expect, it } from 'vitest';
import { abilitiesOfRole, roleChangeRefusal } from './roles';

describe('abilitiesOfRole', () => {
  it('follows the scope of each role: owner and admin administer, editor manages journeys, viewer and no organization only read', () => {
    expect(abilitiesOfRole('owner')).toEqual({ manageJourneys: true, administer: true });
    expect(abilitiesOfRole('admin')).toEqual({ manageJourneys: true, administer: true });
    expect(abilitiesOfRole('editor')).toEqual({ manageJourneys: true, administer: false });
    expect(abilitiesOfRole('viewer')).toEqual({ manageJourneys: false, administer: false });
    expect(abilitiesOfRole(undefined)).toEqual({ manageJourneys: false, administer: false });
  });
});

describe('roleChangeRefusal', () => {
  it('lets only an owner grant, change or remove the owner role, and admins the roles below it', () => {
    expect(roleChangeRefusal('admin', 'admin', 'owner')).toBe('Only an owner can grant, change or remove the owner role');
    expect(roleChangeRefusal('admin', 'viewer', 'owner')).toBe('Only an owner can grant, change or remove the owner role');
    expect(roleChangeRefusal('admin', 'owner', 'viewer')).toBe('Only an owner can grant, change or remove the owner role');
    expect(roleChangeRefusal('admin', 'owner', undefined)).toBe('Only an owner can grant, change or remove the owner role');
    expect(roleChangeRefusal('admin', 'viewer', 'admin')).toBeUndefined();
    expect(roleChangeRefusal('owner', 'viewer', 'owner')).toBeUndefined();
    expect(roleChangeRefusal('owner', 'owner', undefined)).toBeUndefined();
    expect(roleChangeRefusal('editor', 'viewer', 'viewer')).toBe('Only an owner or admin of this organization can do this');
  });
});
