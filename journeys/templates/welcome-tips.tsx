import { Heading, Link, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, headingStyle, textStyle } from './components/email-layout';
import { appUrl, greeting, optionalText, productName } from './components/fields';

const schema = z.object({ firstName: optionalText, productName, docsUrl: appUrl('/docs'), integrationsUrl: appUrl('/settings/integrations') });

/** welcome-series, two days in, for users who already created a project. */
const welcomeTips: EmailTemplate<typeof schema> = {
  key: 'welcome-tips',
  description: 'Three tips for active new users',
  schema,
  subject: (data) => `3 tips to get more out of ${data.productName}`,
  component: ({ firstName, productName, docsUrl, integrationsUrl, links }) => (
    <EmailLayout preview="Small habits that make a big difference" links={links}>
      <Heading as="h1" style={headingStyle}>
        Three tips from the {productName} team
      </Heading>
      <Text style={textStyle}>{greeting(firstName)}</Text>
      <Text style={textStyle}>1. Invite a teammate — projects shine when more than one person uses them.</Text>
      <Text style={textStyle}>
        2. Connect your tools on the <Link href={integrationsUrl}>integrations page</Link>.
      </Text>
      <Text style={textStyle}>
        3. Keep the <Link href={docsUrl}>documentation</Link> handy; every page has a copy-paste example.
      </Text>
    </EmailLayout>
  ),
  sampleData: { firstName: 'Ada' },
};

export default welcomeTips;
