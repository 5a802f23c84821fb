import type { MessageCatalog } from './message-catalog';

/**
 * The text of the public unsubscribe and preference pages (preference-pages.ts), in each language
 * they speak: the contact's `locale` picks one, fr-CA → fr → English (docs/email.md, "Languages").
 * `{email}` is put in as markup by the page (the address, escaped and emphasised); `{scope}` is
 * a category's label or `allEmails`.
 */
export const pageMessages: MessageCatalog<
  | 'footer'
  | 'allEmails'
  | 'unsubscribeQuestion'
  | 'resubscribeQuestion'
  | 'willNotReceive'
  | 'willReceive'
  | 'unsubscribe'
  | 'resubscribe'
  | 'managePreferences'
  | 'unsubscribed'
  | 'resubscribed'
  | 'changedMind'
  | 'undo'
  | 'alwaysSentTitle'
  | 'alwaysSentText'
  | 'alwaysSentOthers'
  | 'requiredNote'
  | 'alwaysSent'
  | 'subscribed'
  | 'unsubscribedStatus'
  | 'suppressed'
  | 'exceptRequired'
  | 'unsubscribedAll'
  | 'unsubscribedAllStrong'
  | 'resubscribeAll'
  | 'stopAll'
  | 'unsubscribeAll'
  | 'title'
  | 'forAddress'
  | 'topics'
  | 'all'
  | 'invalidTitle'
  | 'invalidMessage'
  | 'errorHelp'
> = {
  defaultLocale: 'en',
  messages: {
    en: {
      footer: 'Email preferences',
      allEmails: 'all emails',
      unsubscribeQuestion: 'Unsubscribe from {scope}?',
      resubscribeQuestion: 'Resubscribe to {scope}?',
      willNotReceive: '{email} will no longer receive {scope}.',
      willReceive: '{email} will receive {scope} again.',
      unsubscribe: 'Unsubscribe',
      resubscribe: 'Resubscribe',
      managePreferences: 'Manage email preferences',
      unsubscribed: 'You are unsubscribed',
      resubscribed: 'You are resubscribed',
      changedMind: 'Changed your mind, or want to choose which emails you get?',
      undo: 'Undo',
      alwaysSentTitle: '{label} are always sent',
      alwaysSentText:
        '{email} gets these emails because you asked for them (a password reset, an invitation, a receipt), so they cannot be turned off. Nothing was changed.',
      alwaysSentOthers: 'You can still choose which other emails you get.',
      requiredNote: 'You asked for these emails, so unsubscribing does not stop them.',
      alwaysSent: 'Always sent',
      subscribed: 'Subscribed',
      unsubscribedStatus: 'Unsubscribed',
      suppressed: 'Delivery to this address is paused because earlier emails bounced or were reported as spam. Contact support to lift it.',
      exceptRequired: ' (except {labels}: you asked for those)',
      unsubscribedAll: 'You are {strong}{except}.',
      unsubscribedAllStrong: 'unsubscribed from all emails',
      resubscribeAll: 'Resubscribe to emails',
      stopAll: 'Stop every email we send to this address, whatever the topic{except}.',
      unsubscribeAll: 'Unsubscribe from all emails',
      title: 'Email preferences',
      forAddress: 'For {email}',
      topics: 'Topics',
      all: 'All emails',
      invalidTitle: 'This link is not valid',
      invalidMessage: 'The link may have expired or been copied incompletely, so we could not change your email preferences.',
      errorHelp: 'Use the link in a recent email from us, or reply to that email and we will update your preferences for you.',
    },
    fr: {
      footer: 'Préférences e-mail',
      allEmails: 'tous les e-mails',
      unsubscribeQuestion: 'Se désabonner : {scope} ?',
      resubscribeQuestion: 'Se réabonner : {scope} ?',
      willNotReceive: '{email} ne recevra plus : {scope}.',
      willReceive: '{email} recevra de nouveau : {scope}.',
      unsubscribe: 'Se désabonner',
      resubscribe: 'Se réabonner',
      managePreferences: 'Gérer les préférences e-mail',
      unsubscribed: 'Vous êtes désabonné',
      resubscribed: 'Vous êtes réabonné',
      changedMind: 'Vous avez changé d’avis, ou voulez choisir les e-mails que vous recevez ?',
      undo: 'Annuler',
      alwaysSentTitle: '{label} : toujours envoyés',
      alwaysSentText:
        '{email} reçoit ces e-mails parce que vous les avez demandés (une réinitialisation de mot de passe, une invitation, un reçu) : ils ne peuvent pas être désactivés. Rien n’a été modifié.',
      alwaysSentOthers: 'Vous pouvez toujours choisir les autres e-mails que vous recevez.',
      requiredNote: 'Vous avez demandé ces e-mails : vous désabonner ne les arrête pas.',
      alwaysSent: 'Toujours envoyés',
      subscribed: 'Abonné',
      unsubscribedStatus: 'Désabonné',
      suppressed:
        'L’envoi à cette adresse est suspendu, car des e-mails précédents ont été rejetés ou signalés comme spam. Contactez le support pour le rétablir.',
      exceptRequired: ' (sauf {labels} : vous les avez demandés)',
      unsubscribedAll: 'Vous êtes {strong}{except}.',
      unsubscribedAllStrong: 'désabonné de tous les e-mails',
      resubscribeAll: 'Se réabonner aux e-mails',
      stopAll: 'Arrêter tous les e-mails envoyés à cette adresse, quel qu’en soit le sujet{except}.',
      unsubscribeAll: 'Se désabonner de tous les e-mails',
      title: 'Préférences e-mail',
      forAddress: 'Pour {email}',
      topics: 'Sujets',
      all: 'Tous les e-mails',
      invalidTitle: 'Ce lien n’est pas valide',
      invalidMessage: 'Le lien a peut-être expiré ou été copié de façon incomplète : nous n’avons pas pu modifier vos préférences e-mail.',
      errorHelp: 'Utilisez le lien d’un e-mail récent de notre part, ou répondez à cet e-mail et nous mettrons vos préférences à jour pour vous.',
    },
  },
};
