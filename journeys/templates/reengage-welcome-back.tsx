import { Button, Heading, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, buttonStyle, headingStyle, textStyle } from './components/email-layout';
import { appUrl, greeting, optionalText, productName } from './components/fields';

const schema = z.object({ firstName: optionalText, productName, changelogUrl: appUrl('/changelog') });

/** re-engagement, when the user came back. */
const reengageWelcomeBack: EmailTemplate<typeof schema> = {
  key: 'reengage-welcome-back',
  description: 'Welcome back after a period of inactivity',
  schema,
  subject: (data) => `Welcome back to ${data.productName}`,
  component: ({ firstName, productName, changelogUrl, links }) => (
    <EmailLayout preview="Good to see you again" links={links}>
      <Heading as="h1" style={headingStyle}>
        Welcome back
      </Heading>
      <Text style={textStyle}>{greeting(firstName)}</Text>
      <Text style={textStyle}>Good to see you in {productName} again. The changelog has everything that is new since your last visit.</Text>
      <Button href={changelogUrl} style={buttonStyle}>
        Read the changelog
      </Button>
    </EmailLayout>
  ),
  sampleData: { firstName: 'Ada' },
};

export default reengageWelcomeBack;
