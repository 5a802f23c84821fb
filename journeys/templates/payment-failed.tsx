import { Button, Heading, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, buttonStyle, headingStyle, textStyle } from './components/email-layout';
import { appUrl, greeting, optionalText, productName } from './components/fields';

const schema = z.object({ firstName: optionalText, productName, amount: optionalText, billingUrl: appUrl('/billing') });

/** payment-recovery, first step (on payment.failed). */
const paymentFailed: EmailTemplate<typeof schema> = {
  key: 'payment-failed',
  description: 'A payment did not go through; asks to update the card',
  schema,
  subject: (data) => `Your ${data.productName} payment did not go through`,
  component: ({ firstName, productName, amount, billingUrl, links }) => (
    <EmailLayout preview="Please update your payment details" links={links}>
      <Heading as="h1" style={headingStyle}>
        We could not charge your card
      </Heading>
      <Text style={textStyle}>{greeting(firstName)}</Text>
      <Text style={textStyle}>
        Your {productName} payment{amount === undefined ? '' : ` of ${amount}`} did not go through. Update your card to keep your subscription active.
      </Text>
      <Button href={billingUrl} style={buttonStyle}>
        Update payment details
      </Button>
    </EmailLayout>
  ),
  sampleData: { firstName: 'Ada', amount: '$49.00' },
};

export default paymentFailed;
