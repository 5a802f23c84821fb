import { Button, Heading, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, buttonStyle, headingStyle, textStyle } from './components/email-layout';
import { appUrl, greeting, optionalText, productName } from './components/fields';

const schema = z.object({
  firstName: optionalText,
  plan: optionalText,
  productName,
  billingUrl: appUrl('/billing'),
  /** Stripe's `trial_end`: unix seconds */
  trialEnd: z.coerce.number().int().positive().nullish(),
});

const dateOf = (seconds: number) => new Date(seconds * 1000).toLocaleDateString('en-US', { timeZone: 'UTC', month: 'long', day: 'numeric' });

/** trial-ending (Stripe preset): the trial ends in three days. */
const trialEnding: EmailTemplate<typeof schema> = {
  key: 'trial-ending',
  description: 'Stripe trial ends in three days, with a billing link',
  schema,
  subject: (data) => (data.trialEnd == null ? `Your ${data.productName} trial ends soon` : `Your ${data.productName} trial ends on ${dateOf(data.trialEnd)}`),
  component: ({ firstName, plan, productName, billingUrl, trialEnd, links }) => (
    <EmailLayout preview="Your trial ends in three days" links={links}>
      <Heading as="h1" style={headingStyle}>
        Three days left in your trial
      </Heading>
      <Text style={textStyle}>{greeting(firstName)}</Text>
      <Text style={textStyle}>
        Your {productName}
        {plan === undefined ? '' : ` ${plan}`} trial ends{trialEnd == null ? ' soon' : ` on ${dateOf(trialEnd)}`}. Check your payment details so nothing stops
        when it does.
      </Text>
      <Button href={billingUrl} style={buttonStyle}>
        Review billing
      </Button>
    </EmailLayout>
  ),
  sampleData: { firstName: 'Ada', plan: 'pro_monthly', trialEnd: 1_726_259_200 },
};

export default trialEnding;
