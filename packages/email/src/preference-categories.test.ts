import { describe, expect, it } from 'vitest';
import { definePreferenceCategories } from './preference-categories';

describe('definePreferenceCategories', () => {
  const journey = { key: 'journey', label: 'Journey & lifecycle emails', description: 'Lifecycle' };
  const newsletter = { key: 'newsletter', label: 'Newsletter', description: 'Monthly' };

  it('keeps the declared order and finds by key', () => {
    const categories = definePreferenceCategories([journey, newsletter]);
    expect(categories.all().map((category) => category.key)).toEqual(['journey', 'newsletter']);
    expect(categories.find('newsletter')).toEqual(newsletter);
    expect(categories.find('promotions')).toBeUndefined();
    expect(categories.unknown(['journey', 'promotions', 'promotions', 'x'])).toEqual(['promotions', 'x']);
  });

  it('refuses a list without journey, a duplicate, a bad key or an empty label', () => {
    expect(() => definePreferenceCategories([newsletter])).toThrow('must include "journey"');
    expect(() => definePreferenceCategories([journey, journey])).toThrow('Duplicate preference category "journey"');
    expect(() => definePreferenceCategories([journey, { ...newsletter, key: 'News Letter' }])).toThrow('lowercase letters');
    expect(() => definePreferenceCategories([journey, { ...newsletter, label: ' ' }])).toThrow('needs a label');
  });
});
