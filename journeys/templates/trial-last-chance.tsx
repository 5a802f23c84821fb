import { Button, Heading, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, buttonStyle, headingStyle, textStyle } from './components/email-layout';
import { appUrl, greeting, optionalText, productName } from './components/fields';

const schema = z.object({
  firstName: optionalText,
  plan: optionalText,
  productName,
  upgradeUrl: appUrl('/billing/upgrade'),
  daysLeft: z.coerce.number().int().min(0).default(3),
});

/** trial-conversion, last reminder before the trial ends. */
const trialLastChance: EmailTemplate<typeof schema> = {
  key: 'trial-last-chance',
  description: 'Trial ending soon, with an upgrade link',
  schema,
  subject: (data) => (data.daysLeft <= 1 ? `Your ${data.productName} trial ends tomorrow` : `Your ${data.productName} trial ends in ${data.daysLeft} days`),
  component: ({ firstName, plan, productName, upgradeUrl, daysLeft, links }) => (
    <EmailLayout preview={`${daysLeft} days left in your trial`} links={links}>
      <Heading as="h1" style={headingStyle}>
        Your trial ends soon
      </Heading>
      <Text style={textStyle}>{greeting(firstName)}</Text>
      <Text style={textStyle}>
        You have {daysLeft} {daysLeft === 1 ? 'day' : 'days'} left in your {productName}
        {plan === undefined ? '' : ` ${plan}`} trial. Upgrade now to keep your projects and settings exactly as they are.
      </Text>
      <Button href={upgradeUrl} style={buttonStyle}>
        Choose a plan
      </Button>
    </EmailLayout>
  ),
  sampleData: { firstName: 'Ada', plan: 'pro', daysLeft: 3 },
};

export default trialLastChance;
