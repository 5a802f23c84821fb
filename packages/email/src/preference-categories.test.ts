import { describe, expect, it } from 'vitest';
import { definePreferenceCategories } from './preference-categories';

describe('definePreferenceCategories', () => {
  const journey = { key: 'journey', label: 'Journey & lifecycle emails', description: 'Lifecycle' };
  const newsletter = { key: 'newsletter', label: 'Newsletter', description: 'Monthly' };

  it('keeps the declared order and finds by key', () => {
    const categories = definePreferenceCategories([journey, newsletter]);
    expect(categories.all().map((category) => category.key)).toEqual(['journey', 'newsletter']);
    expect(categories.find('newsletter')).toEqual({ ...newsletter, required: false });
    expect(categories.find('promotions')).toBeUndefined();
    expect(categories.unknown(['journey', 'promotions', 'promotions', 'x'])).toEqual(['promotions', 'x']);
  });

  it('refuses a list without journey, a duplicate, a bad key or an empty label', () => {
    expect(() => definePreferenceCategories([newsletter])).toThrow('must include "journey"');
    expect(() => definePreferenceCategories([journey, journey])).toThrow('Duplicate preference category "journey"');
    expect(() => definePreferenceCategories([journey, { ...newsletter, key: 'News Letter' }])).toThrow('lowercase letters');
    expect(() => definePreferenceCategories([journey, { ...newsletter, label: ' ' }])).toThrow('needs a label');
  });

  it('marks required categories, and refuses a required journey category', () => {
    const receipts = { key: 'receipts', label: 'Receipts', description: 'What you bought', required: true };
    const categories = definePreferenceCategories([journey, newsletter, receipts]);
    expect(categories.find('receipts')?.required).toBe(true);
    expect(categories.required('receipts')).toBe(true);
    expect(categories.required('newsletter')).toBe(false);
    expect(categories.required('unknown')).toBe(false);
    expect(() => definePreferenceCategories([{ ...journey, required: true }, newsletter])).toThrow('"journey" may not be required');
    expect(() => definePreferenceCategories([journey, { ...newsletter, required: 'yes' as unknown as boolean }])).toThrow('required must be true or false');
  });
});
