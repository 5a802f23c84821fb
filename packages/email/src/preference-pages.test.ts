import { describe, expect, it } from 'vitest';
import { catalogProblems } from './message-catalog';
import { pageMessages } from './page-messages';
import { localizedCategory } from './preference-categories';
import { confirmationPage, preferenceCenterPage, questionPage } from './preference-pages';

const center = {
  email: 'ada@example.com',
  suppressed: false,
  unsubscribedAll: true,
  globalToggleUrl: 'https://mail.example.com/v1/email/unsubscribe?token=G',
  categories: [
    { key: 'news', label: 'Newsletter', description: 'Stories.', required: false as const, subscribed: true, toggleUrl: 'https://mail.example.com/t' },
    { key: 'transactional', label: 'Receipts', description: 'Asked for.', required: true as const },
  ],
};

describe('the preference pages speak the contact’s language (docs/email.md, "Languages")', () => {
  it('has every English message in French, as ICU MessageFormat', () => {
    expect(catalogProblems('preference pages', pageMessages)).toEqual([]);
  });

  it('answers fr-CA in French and de in English, the address escaped inside the translated sentence', () => {
    const french = questionPage({ action: 'unsubscribe', email: 'a<b>@example.com', formAction: '/u', preferencesUrl: '/p', locale: 'fr-CA' });
    expect(french).toContain('<html lang="fr">');
    expect(french).toContain('<h1>Se désabonner : tous les e-mails ?</h1>');
    expect(french).toContain('<span class="email">a&#60;b&#62;@example.com</span> ne recevra plus : tous les e-mails.');
    const german = confirmationPage({ action: 'unsubscribe', email: 'ada@example.com', undoUrl: '/u', preferencesUrl: '/p', locale: 'de' });
    expect(german).toContain('<html lang="en">');
    expect(german).toContain('You are unsubscribed');
    expect(german).toContain('<span class="email">ada@example.com</span> will no longer receive all emails.');
  });

  it('keeps the English preference center as it was, and translates it for fr', () => {
    const english = preferenceCenterPage(center);
    expect(english).toContain('<p>You are <strong>unsubscribed from all emails</strong> (except Receipts: you asked for those).</p>');
    const french = preferenceCenterPage({ ...center, locale: 'fr' });
    expect(french).toContain('<p>Vous êtes <strong>désabonné de tous les e-mails</strong> (sauf Receipts : vous les avez demandés).</p>');
    expect(french).toContain('<h1>Préférences e-mail</h1>');
    expect(french).toContain('Toujours envoyés');
  });

  it('shows a category’s translated label, by the same fallback chain', () => {
    const category = { key: 'news', label: 'Newsletter', description: 'Stories.', translations: { fr: { label: 'Lettre', description: 'Récits.' } } };
    expect(localizedCategory(category, 'fr-CA')).toEqual({ label: 'Lettre', description: 'Récits.' });
    expect(localizedCategory(category, 'de')).toEqual({ label: 'Newsletter', description: 'Stories.' });
    expect(localizedCategory(category, undefined)).toEqual({ label: 'Newsletter', description: 'Stories.' });
  });
});
