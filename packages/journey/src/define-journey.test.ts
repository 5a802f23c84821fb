import { describe, expect, it } from 'vitest';
import { defineJourney, JourneyDefinitionError, validateJourney, type JourneyDefinition } from './define-journey';

const valid: JourneyDefinition = {
  id: 'trial-conversion',
  name: 'Trial conversion',
  description: 'Nudges trial users',
  trigger: { event: 'trial.started', where: [{ type: 'property', property: 'plan', operator: 'eq', value: 'pro' }] },
  entryLimit: 'once',
  exitOn: [{ event: 'subscription.started' }],
  suppress: { hours: 24 },
  run: async () => undefined,
};

/** A definition with one field replaced by a value TypeScript would reject (as a plain JS journey file could hold). */
const withField = (field: string, value: unknown) => ({ ...valid, [field]: value }) as unknown as JourneyDefinition;

describe('validateJourney', () => {
  it('accepts a complete definition', () => {
    expect(validateJourney(valid)).toEqual([]);
  });

  it.each([
    ['id', 'Trial_Conversion', 'id must be lowercase letters, digits and dashes (max 63)'],
    ['id', 'x'.repeat(64), 'id must be lowercase letters, digits and dashes (max 63)'],
    ['name', '  ', 'name must be a non-empty string'],
    ['description', undefined, 'description must be a string'],
    ['enabled', 'yes', 'enabled must be a boolean'],
    ['trigger', undefined, 'trigger must be an object {event, where?}'],
    ['trigger', { event: 'e', where: { type: 'property' } }, 'trigger.where must be an array of conditions'],
    ['trigger', { event: 'e', where: [{ type: 'property', property: 'p', operator: 'like', value: 1 }] }, 'trigger.where[0] operator must be one of'],
    ['entryLimit', 'twice', "entryLimit must be 'once' or 'unlimited'"],
    ['exitOn', { event: 'x' }, 'exitOn must be an array'],
    ['exitOn', [{ event: 'ok' }, { event: '' }], 'exitOn[1].event must be a non-empty string'],
    ['suppress', { hours: -1 }, 'suppress.hours must be a number ≥ 0'],
    ['suppress', { hours: '24' }, 'suppress.hours must be a number ≥ 0'],
    ['suppress', null, 'suppress.hours must be a number ≥ 0'],
    ['run', undefined, 'run must be an async function'],
  ])('%s = %j → %s', (field, value, problem) => {
    const problems = validateJourney(withField(field, value));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(problem);
  });
});

describe('defineJourney', () => {
  it('throws a JourneyDefinitionError naming the journey and listing each problem on its own line', () => {
    const attempt = () => defineJourney({ ...withField('entryLimit', 'twice'), suppress: { hours: -2 } });
    expect(attempt).toThrow(JourneyDefinitionError);
    expect(attempt).toThrow("Invalid journey 'trial-conversion':\n  - entryLimit must be 'once' or 'unlimited'\n  - suppress.hours must be a number ≥ 0");
  });

  it("names a definition without an id '(no id)'", () => {
    expect(() => defineJourney(withField('id', undefined))).toThrow("Invalid journey '(no id)'");
  });

  it('keeps explicit values', () => {
    expect(defineJourney({ ...valid, enabled: false })).toMatchObject({
      enabled: false,
      entryLimit: 'once',
      exitOn: [{ event: 'subscription.started' }],
      suppress: { hours: 24 },
    });
  });
});
