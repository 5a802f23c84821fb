import { Button, Heading, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, buttonStyle, headingStyle, textStyle } from './components/email-layout';
import { appUrl, greeting, optionalText, productName } from './components/fields';

const schema = z.object({ firstName: optionalText, productName, newProjectUrl: appUrl('/projects/new') });

/** welcome-series, two days in, for users who have not created a project yet. */
const welcomeGettingStarted: EmailTemplate<typeof schema> = {
  key: 'welcome-getting-started',
  description: 'Nudge to create a first project',
  schema,
  subject: (data) => `Your first ${data.productName} project takes two minutes`,
  component: ({ firstName, productName, newProjectUrl, links }) => (
    <EmailLayout preview="Create your first project in two minutes" links={links}>
      <Heading as="h1" style={headingStyle}>
        Ready for your first project?
      </Heading>
      <Text style={textStyle}>{greeting(firstName)}</Text>
      <Text style={textStyle}>
        Most people see what {productName} can do within minutes of creating a project. Start from a template and you are done before your coffee cools.
      </Text>
      <Button href={newProjectUrl} style={buttonStyle}>
        Create a project
      </Button>
    </EmailLayout>
  ),
  sampleData: { firstName: 'Ada' },
};

export default welcomeGettingStarted;
