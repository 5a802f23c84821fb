import { Button, Heading, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, buttonStyle, headingStyle, textStyle } from './components/email-layout';
import { appUrl, greeting, optionalText, productName } from './components/fields';

const schema = z.object({ firstName: optionalText, productName, daysInactive: z.coerce.number().int().nonnegative().nullish(), dashboardUrl: appUrl('/') });

/** re-engagement, first step (on user.inactive). */
const reengageWeMissYou: EmailTemplate<typeof schema> = {
  key: 'reengage-we-miss-you',
  description: 'We miss you: an invitation back',
  schema,
  subject: (data) => `We miss you at ${data.productName}`,
  component: ({ firstName, productName, daysInactive, dashboardUrl, links }) => (
    <EmailLayout preview="Here is what changed while you were away" links={links}>
      <Heading as="h1" style={headingStyle}>
        It has been a while
      </Heading>
      <Text style={textStyle}>{greeting(firstName)}</Text>
      <Text style={textStyle}>
        {daysInactive == null ? 'It has been a while' : `It has been ${daysInactive} days`} since you last used {productName}. We have shipped a lot since then
        — come and take a look.
      </Text>
      <Button href={dashboardUrl} style={buttonStyle}>
        See what is new
      </Button>
    </EmailLayout>
  ),
  sampleData: { firstName: 'Ada', daysInactive: 21 },
};

export default reengageWeMissYou;
