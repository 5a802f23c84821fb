import type { MessageCatalog } from '@waymark/email/message-catalog';

/** The footer every template shares, in each language a template of this deployment speaks (docs/email.md, "Languages"). */
export const layoutMessages: MessageCatalog<'reason' | 'unsubscribe' | 'preferences'> = {
  defaultLocale: 'en',
  messages: {
    en: {
      reason: 'You are receiving this email because you have an account with us.',
      unsubscribe: 'Unsubscribe',
      preferences: 'Email preferences',
    },
    fr: {
      reason: 'Vous recevez cet e-mail car vous avez un compte chez nous.',
      unsubscribe: 'Se désabonner',
      preferences: 'Préférences e-mail',
    },
  },
};
