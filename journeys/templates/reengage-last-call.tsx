import { Button, Heading, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, buttonStyle, headingStyle, textStyle } from './components/email-layout';
import { appUrl, greeting, optionalText, productName } from './components/fields';

const schema = z.object({ firstName: optionalText, productName, dashboardUrl: appUrl('/') });

/** re-engagement, final email when the user did not come back. */
const reengageLastCall: EmailTemplate<typeof schema> = {
  key: 'reengage-last-call',
  description: 'Last email of the re-engagement journey',
  schema,
  subject: (data) => `Should we stop emailing you about ${data.productName}?`,
  component: ({ firstName, productName, dashboardUrl, links }) => (
    <EmailLayout preview="One last note from us" links={links}>
      <Heading as="h1" style={headingStyle}>
        One last note
      </Heading>
      <Text style={textStyle}>{greeting(firstName)}</Text>
      <Text style={textStyle}>
        We have not seen you in {productName} for a while, so this is the last reminder you will get from us. Your account and data stay exactly where you left
        them.
      </Text>
      <Button href={dashboardUrl} style={buttonStyle}>
        Pick up where you left off
      </Button>
    </EmailLayout>
  ),
  sampleData: { firstName: 'Ada' },
};

export default reengageLastCall;
