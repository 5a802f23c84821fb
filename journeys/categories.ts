import type { PreferenceCategory } from '@waymark/email/preference-categories';

/**
 * This deployment's preference categories (docs/email.md, "Preference categories"): the preference
 * center lists each one, a person can leave each on its own, and a journey (its `category`
 * option) or a contact's preferences may name only these. `journey` must be declared: journey
 * emails use it unless the journey names another. `required: true` marks emails the person asked
 * for (docs/email.md, "Preference categories"). Add a category by adding an entry here; the runtime
 * checks the list at start-up (runtime/runtime.ts).
 */
export const categories: readonly PreferenceCategory[] = [
  {
    key: 'journey',
    label: 'Journey & lifecycle emails',
    description: 'Onboarding tips, reminders and account notices.',
    translations: { fr: { label: 'E-mails d’accompagnement', description: 'Conseils de prise en main, rappels et avis sur votre compte.' } },
  },
  {
    key: 'product-updates',
    label: 'Product updates',
    description: 'New features and changes to the product.',
    translations: { fr: { label: 'Nouveautés du produit', description: 'Nouvelles fonctionnalités et changements du produit.' } },
  },
  {
    key: 'newsletter',
    label: 'Newsletter',
    description: 'Our regular newsletter: stories, guides and events.',
    translations: { fr: { label: 'Newsletter', description: 'Notre newsletter régulière : récits, guides et événements.' } },
  },
  // password resets, invitations and receipts (journeys/templates/auth-*.tsx, order-receipt.tsx):
  // the person asked for each, so no opt-out stops them (only suppression does)
  {
    key: 'transactional',
    label: 'Account & order emails',
    description: 'Password resets, invitations and receipts you asked for.',
    required: true,
    translations: { fr: { label: 'E-mails de compte et de commande', description: 'Réinitialisations de mot de passe, invitations et reçus demandés.' } },
  },
];
