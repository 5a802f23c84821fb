import { Button, Heading, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, buttonStyle, headingStyle, textStyle } from './components/email-layout';
import { appUrl, greeting, optionalText, productName } from './components/fields';

const schema = z.object({
  firstName: optionalText,
  plan: optionalText,
  productName,
  dashboardUrl: appUrl('/'),
  trialDays: z.coerce.number().int().positive().default(14),
});

/** trial-conversion, first step (on trial.started). */
const trialWelcome: EmailTemplate<typeof schema> = {
  key: 'trial-welcome',
  description: 'Welcome to the trial, with a link to the dashboard',
  schema,
  subject: (data) => `Your ${data.plan === undefined ? '' : `${data.plan} `}trial of ${data.productName} has started`,
  component: ({ firstName, plan, productName, dashboardUrl, trialDays, links }) => (
    <EmailLayout preview={`Your ${trialDays}-day ${productName} trial has started`} links={links}>
      <Heading as="h1" style={headingStyle}>
        Your trial has started
      </Heading>
      <Text style={textStyle}>{greeting(firstName)}</Text>
      <Text style={textStyle}>
        You have {trialDays} days of {productName}
        {plan === undefined ? '' : ` ${plan}`} to explore. The quickest way to see what it can do is to create your first project.
      </Text>
      <Button href={dashboardUrl} style={buttonStyle}>
        Open your dashboard
      </Button>
    </EmailLayout>
  ),
  sampleData: { firstName: 'Ada', plan: 'pro' },
};

export default trialWelcome;
