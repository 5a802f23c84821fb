import { Button, Heading, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, buttonStyle, headingStyle, textStyle } from './components/email-layout';
import { appUrl, greeting, optionalText, productName } from './components/fields';

const schema = z.object({ firstName: optionalText, plan: optionalText, productName, pricingUrl: appUrl('/pricing') });

/** trial-conversion, for trial users who looked at pricing. */
const trialPricingFollowup: EmailTemplate<typeof schema> = {
  key: 'trial-pricing-followup',
  description: 'Follow-up for trial users who viewed pricing',
  schema,
  subject: (data) => `Questions about ${data.productName} pricing?`,
  component: ({ firstName, plan, productName, pricingUrl, links }) => (
    <EmailLayout preview="We are happy to help you pick a plan" links={links}>
      <Heading as="h1" style={headingStyle}>
        Choosing a plan
      </Heading>
      <Text style={textStyle}>{greeting(firstName)}</Text>
      <Text style={textStyle}>
        We noticed you were looking at {productName} pricing{plan === undefined ? '' : ` during your ${plan} trial`}. If a plan does not quite fit, reply and
        tell us what you need.
      </Text>
      <Button href={pricingUrl} style={buttonStyle}>
        Compare plans
      </Button>
    </EmailLayout>
  ),
  sampleData: { firstName: 'Ada', plan: 'pro' },
};

export default trialPricingFollowup;
