import { describe, expect, it } from 'vitest';
import { eventPassesWhere } from './machine-hits';

describe('eventPassesWhere: machine opens and clicks', () => {
  const scannerClick = { linkUrl: 'https://app.example.com/pricing', machine: true, machineReason: 'head_request' };
  const personClick = { linkUrl: 'https://app.example.com/pricing', machine: false, machineReason: null };

  it('a machine click passes no rule that does not ask about machine', () => {
    expect(eventPassesWhere('email.link_clicked', undefined, scannerClick)).toBe(false);
    expect(eventPassesWhere('email.link_clicked', [{ type: 'property', property: 'linkUrl', operator: 'contains', value: 'pricing' }], scannerClick)).toBe(
      false,
    );
    expect(eventPassesWhere('email.opened', [], { machine: true, machineReason: 'apple_mpp' })).toBe(false);
  });

  it('a person passes as before', () => {
    expect(eventPassesWhere('email.link_clicked', undefined, personClick)).toBe(true);
    expect(eventPassesWhere('email.link_clicked', [{ type: 'property', property: 'linkUrl', operator: 'contains', value: 'pricing' }], personClick)).toBe(true);
  });

  it('an author opts in by naming machine in the where', () => {
    expect(eventPassesWhere('email.link_clicked', [{ type: 'property', property: 'machine', operator: 'eq', value: true }], scannerClick)).toBe(true);
    expect(eventPassesWhere('email.link_clicked', [{ type: 'property', property: 'machine', operator: 'eq', value: true }], personClick)).toBe(false);
    expect(eventPassesWhere('email.link_clicked', [{ type: 'property', property: 'machine', operator: 'exists' }], scannerClick)).toBe(true);
  });

  it('other events keep their own machine property meaning nothing special', () => {
    expect(eventPassesWhere('device.synced', undefined, { machine: true })).toBe(true);
  });
});
