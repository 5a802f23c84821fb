import { Button, Heading, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, buttonStyle, headingStyle, textStyle } from './components/email-layout';
import { appUrl, greeting, optionalText, productName } from './components/fields';

const schema = z.object({ firstName: optionalText, productName, billingUrl: appUrl('/billing') });

/** payment-recovery, last step: the subscription is about to lapse. */
const paymentFinalNotice: EmailTemplate<typeof schema> = {
  key: 'payment-final-notice',
  description: 'Last notice before a subscription with a failed payment lapses',
  schema,
  subject: (data) => `Last notice: your ${data.productName} subscription is about to lapse`,
  component: ({ firstName, productName, billingUrl, links }) => (
    <EmailLayout preview="Your subscription is about to lapse" links={links}>
      <Heading as="h1" style={headingStyle}>
        Your subscription is about to lapse
      </Heading>
      <Text style={textStyle}>{greeting(firstName)}</Text>
      <Text style={textStyle}>We still could not charge your card, so your {productName} subscription will lapse soon. Update your card to keep it.</Text>
      <Button href={billingUrl} style={buttonStyle}>
        Update payment details
      </Button>
    </EmailLayout>
  ),
  sampleData: { firstName: 'Ada' },
};

export default paymentFinalNotice;
