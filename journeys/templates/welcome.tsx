import { Button, Heading, Text } from '@react-email/components';
import { z } from 'zod';
import { defineTemplate } from '@waymark/email/email-template';
import { EmailLayout, buttonStyle, headingStyle, textStyle } from './components/email-layout';
import { appUrl, optionalText, productName } from './components/fields';

const schema = z.object({ firstName: optionalText, productName, dashboardUrl: appUrl('/') });

/** welcome-series, first step (on user.signed_up), in English and French (docs/email.md, "Languages"). */
const welcome = defineTemplate({
  key: 'welcome',
  description: 'Welcome email sent right after sign-up',
  schema,
  messages: {
    en: {
      subject: 'Welcome to {productName}!',
      subjectNamed: 'Welcome to {productName}, {firstName}!',
      preview: 'Welcome to {productName} — here is where to start',
      heading: 'Welcome to {productName}',
      greeting: 'Hi there,',
      greetingNamed: 'Hi {firstName},',
      ready: 'Thanks for signing up. Your account is ready, and everything you need is one click away.',
      dashboard: 'Go to your dashboard',
      reply: 'Just reply to this email if you have a question — a person reads every answer.',
    },
    fr: {
      subject: 'Bienvenue sur {productName} !',
      subjectNamed: 'Bienvenue sur {productName}, {firstName} !',
      preview: 'Bienvenue sur {productName} — voici par où commencer',
      heading: 'Bienvenue sur {productName}',
      greeting: 'Bonjour,',
      greetingNamed: 'Bonjour {firstName},',
      ready: 'Merci de votre inscription. Votre compte est prêt, et tout ce dont vous avez besoin est à portée de clic.',
      dashboard: 'Accéder à votre tableau de bord',
      reply: 'Une question ? Répondez simplement à cet e-mail : une personne lit chaque réponse.',
    },
  },
  subject: ({ productName, firstName }, t) => (firstName === undefined ? t('subject', { productName }) : t('subjectNamed', { productName, firstName })),
  component: ({ firstName, productName, dashboardUrl, links, locale, t }) => (
    <EmailLayout preview={t('preview', { productName })} links={links} locale={locale}>
      <Heading as="h1" style={headingStyle}>
        {t('heading', { productName })}
      </Heading>
      <Text style={textStyle}>{firstName === undefined ? t('greeting') : t('greetingNamed', { firstName })}</Text>
      <Text style={textStyle}>{t('ready')}</Text>
      <Button href={dashboardUrl} style={buttonStyle}>
        {t('dashboard')}
      </Button>
      <Text style={textStyle}>{t('reply')}</Text>
    </EmailLayout>
  ),
  sampleData: { firstName: 'Ada' },
});

export default welcome;
