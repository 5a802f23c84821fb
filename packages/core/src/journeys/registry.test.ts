import { describe, expect, it } from 'vitest';
import { defineJourney, type Journey, type JourneyDefinition } from '@waymark/journey';
import { definePreferenceCategories } from '@waymark/email/preference-categories';
import { AppError } from '../errors/app-error';
import { createJourneyRegistry, parseEnabledJourneys } from './registry';

const journey = (id: string, overrides: Partial<JourneyDefinition> = {}): Journey =>
  defineJourney({ id, name: id, description: '', trigger: { event: `${id}.triggered` }, run: async () => undefined, ...overrides });

const welcome = journey('welcome', { trigger: { event: 'user.signed_up' } });
const onboarding = journey('onboarding', { trigger: { event: 'user.signed_up' } });
const winback = journey('winback', { trigger: { event: 'user.inactive' }, enabled: false });
const all = [welcome, onboarding, winback];

describe('createJourneyRegistry', () => {
  it('indexes journeys by id (sorted) and by trigger event', () => {
    const registry = createJourneyRegistry(all, { enabledJourneys: '*' });
    expect(registry.all().map((j) => j.id)).toEqual(['onboarding', 'welcome', 'winback']);
    expect(registry.find('welcome')).toBe(welcome);
    expect(registry.find('nope')).toBeUndefined();
    expect(registry.triggeredBy('user.signed_up')).toEqual([welcome, onboarding]);
    expect(registry.triggeredBy('nothing.listens')).toEqual([]);
  });

  it('get throws a 404 AppError for an unknown id', () => {
    const registry = createJourneyRegistry(all, { enabledJourneys: '*' });
    expect(registry.get('onboarding')).toBe(onboarding);
    expect(() => registry.get('nope')).toThrow(AppError);
    expect(() => registry.get('nope')).toThrow('Journey not found');
  });

  it('refuses two journeys with the same id (start-up stops)', () => {
    const twin = journey('welcome', { name: 'Another welcome' });
    expect(() => createJourneyRegistry([welcome, twin], { enabledJourneys: '*' })).toThrow("Duplicate journey id 'welcome' in journeys/index.ts");
  });

  it('refuses an invalid definition that bypassed defineJourney, listing every problem', () => {
    const broken = { ...welcome, id: 'Broken Id', trigger: { event: '' }, suppress: { hours: -1 } } as Journey;
    expect(() => createJourneyRegistry([broken], { enabledJourneys: '*' })).toThrow(
      /^Invalid journey 'Broken Id': id must be lowercase.*; trigger\.event must be a non-empty string; suppress\.hours must be a number ≥ 0$/,
    );
  });

  it("ENABLED_JOURNEYS '*' enables every journey whose code default is enabled", () => {
    const registry = createJourneyRegistry(all, { enabledJourneys: '*' });
    expect(registry.codeEnabled('welcome')).toBe(true);
    expect(registry.codeEnabled('onboarding')).toBe(true);
    // the code default `enabled: false` still holds: '*' does not switch it on
    expect(registry.codeEnabled('winback')).toBe(false);
    expect(registry.codeEnabled('nope')).toBe(false);
  });

  it('ENABLED_JOURNEYS as a list enables only the listed journeys (still subject to the code default)', () => {
    const registry = createJourneyRegistry(all, { enabledJourneys: ' welcome , winback ' });
    expect(registry.codeEnabled('welcome')).toBe(true);
    expect(registry.codeEnabled('onboarding')).toBe(false);
    expect(registry.codeEnabled('winback')).toBe(false);
    // not listed means not routed, but the journey is still known (admin plane, running instances)
    expect(registry.find('onboarding')).toBe(onboarding);
  });

  it('an unknown id in ENABLED_JOURNEYS stops start-up, naming it and the known ids', () => {
    expect(() => createJourneyRegistry(all, { enabledJourneys: 'welcome,welcome-series,trial' })).toThrow(
      'ENABLED_JOURNEYS names unknown journeys: welcome-series, trial (known: welcome, onboarding, winback)',
    );
  });
});

describe('createJourneyRegistry and preference categories', () => {
  const categories = definePreferenceCategories([
    { key: 'journey', label: 'Journey & lifecycle emails', description: '' },
    { key: 'newsletter', label: 'Newsletter', description: '' },
  ]);

  it('accepts a journey naming a declared category, and one naming none', () => {
    const digest = journey('digest', { category: 'newsletter' });
    expect(createJourneyRegistry([digest, welcome], { enabledJourneys: '*', categories }).find('digest')?.category).toBe('newsletter');
  });

  it('refuses a journey naming an undeclared category, naming it (start-up stops)', () => {
    expect(() => createJourneyRegistry([journey('digest', { category: 'promotions' })], { enabledJourneys: '*', categories })).toThrow(
      "Journey 'digest' names an unknown preference category 'promotions' (known: journey, newsletter; journeys/categories.ts)",
    );
  });
});

describe('parseEnabledJourneys', () => {
  it.each([
    ['*', '*'],
    ['', '*'],
    [' , ', '*'],
    ['welcome,*', '*'],
  ])('%j → every journey', (value, expected) => expect(parseEnabledJourneys(value)).toBe(expected));

  it('reads a comma-separated list, trimming blanks', () => {
    expect(parseEnabledJourneys('welcome, onboarding,,')).toEqual(new Set(['welcome', 'onboarding']));
  });
});
