import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTemplate } from './email-template';
import { catalogProblems, localeChain, resolveLocale, translator, type MessageCatalog } from './message-catalog';

const catalog: MessageCatalog<'hello' | 'items'> = {
  defaultLocale: 'en',
  messages: {
    en: { hello: 'Hello {name}', items: '{count, plural, one {# item} other {# items}}' },
    fr: { hello: 'Bonjour {name}', items: '{count, plural, one {# article} other {# articles}}' },
    'pt-BR': { hello: 'Olá {name}', items: '{count, plural, one {# item} other {# itens}}' },
  },
};

describe('the fallback chain', () => {
  it('tries the tag, then each shorter one, extensions dropped; nothing for a tag that is not BCP 47', () => {
    expect(localeChain('fr-CA')).toEqual(['fr-CA', 'fr']);
    expect(localeChain('zh-hant-tw')).toEqual(['zh-Hant-TW', 'zh-Hant', 'zh']);
    expect(localeChain('en-US-u-ca-buddhist')).toEqual(['en-US', 'en']);
    expect(localeChain('not a locale')).toEqual([]);
    expect(localeChain(undefined)).toEqual([]);
  });

  it('picks fr-CA → fr → the default, matching case-insensitively', () => {
    expect(resolveLocale(catalog, 'fr-CA')).toBe('fr');
    expect(resolveLocale(catalog, 'fr')).toBe('fr');
    expect(resolveLocale(catalog, 'pt-br')).toBe('pt-BR');
    expect(resolveLocale(catalog, 'pt-PT')).toBe('en');
    expect(resolveLocale(catalog, 'de')).toBe('en');
    expect(resolveLocale(catalog, null)).toBe('en');
    expect(resolveLocale(undefined, 'fr')).toBe('en');
  });

  it('formats ICU MessageFormat in the chosen locale', () => {
    const t = translator(catalog, 'fr');
    expect(t('hello', { name: 'Ada' })).toBe('Bonjour Ada');
    expect(t('items', { count: 1 })).toBe('1 article');
    expect(t('items', { count: 3 })).toBe('3 articles');
  });
});

describe('catalogProblems (run over every shipped catalog by the unit tests, so by npm run check)', () => {
  it('passes a complete catalog', () => {
    expect(catalogProblems('fixture', catalog)).toEqual([]);
  });

  it('fails a catalog missing a French message, naming the locale and the key', () => {
    const missing = { defaultLocale: 'en', messages: { en: { hello: 'Hello', bye: 'Bye' }, fr: { hello: 'Bonjour' } } } as MessageCatalog;
    expect(catalogProblems('fixture', missing)).toEqual(['fixture: locale "fr" is missing message "bye"']);
  });

  it('fails an unknown key, a tag that is not BCP 47, a message that is not ICU, and a default without messages', () => {
    const bad: MessageCatalog = {
      defaultLocale: 'en',
      messages: { en: { hello: 'Hello' }, fr: { hello: 'Bonjour {name', extra: 'x' }, 'not a tag': { hello: 'Hi' } },
    };
    const problems = catalogProblems('fixture', bad);
    expect(problems).toContain('fixture: locale "fr" has message "extra", which "en" does not');
    expect(problems).toContain('fixture: "not a tag" is not a BCP 47 language tag');
    expect(problems.some((problem) => problem.startsWith('fixture: locale "fr", message "hello" is not ICU MessageFormat'))).toBe(true);
    expect(catalogProblems('fixture', { defaultLocale: 'de', messages: { en: {} } })).toEqual(['fixture: no messages for its default locale "de"']);
  });
});

describe('defineTemplate', () => {
  it('types t by the catalog keys', () => {
    const template = defineTemplate({
      key: 'typed',
      schema: z.object({}),
      messages: { en: { subject: 'Hi' }, fr: { subject: 'Salut' } },
      // @ts-expect-error: a key the catalog does not have
      subject: (_data, t) => t('subjet'),
      component: () => null as never,
      sampleData: {},
    });
    expect(template.messages).toEqual({ defaultLocale: 'en', messages: { en: { subject: 'Hi' }, fr: { subject: 'Salut' } } });
  });
});
