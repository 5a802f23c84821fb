import { Button, Heading, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, buttonStyle, headingStyle, textStyle } from './components/email-layout';
import { appUrl, greeting, optionalText, productName } from './components/fields';

const schema = z.object({ firstName: optionalText, productName, dashboardUrl: appUrl('/') });

/** welcome-series, first step (on user.signed_up). */
const welcome: EmailTemplate<typeof schema> = {
  key: 'welcome',
  description: 'Welcome email sent right after sign-up',
  schema,
  subject: (data) => `Welcome to ${data.productName}${data.firstName === undefined ? '' : `, ${data.firstName}`}!`,
  component: ({ firstName, productName, dashboardUrl, links }) => (
    <EmailLayout preview={`Welcome to ${productName} — here is where to start`} links={links}>
      <Heading as="h1" style={headingStyle}>
        Welcome to {productName}
      </Heading>
      <Text style={textStyle}>{greeting(firstName)}</Text>
      <Text style={textStyle}>Thanks for signing up. Your account is ready, and everything you need is one click away.</Text>
      <Button href={dashboardUrl} style={buttonStyle}>
        Go to your dashboard
      </Button>
      <Text style={textStyle}>Just reply to this email if you have a question — a person reads every answer.</Text>
    </EmailLayout>
  ),
  sampleData: { firstName: 'Ada' },
};

export default welcome;
