import { Heading, Link, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, headingStyle, textStyle } from './components/email-layout';
import { appUrl, optionalText, productName } from './components/fields';

const schema = z.object({ projectName: optionalText, productName, docsUrl: appUrl('/docs/publishing') });

/** first-project, at once: how to get a new project to its first publish. */
const firstProjectTips: EmailTemplate<typeof schema> = {
  key: 'first-project-tips',
  description: 'Tips for a project just created, towards its first publish',
  schema,
  subject: (data) => (data.projectName === undefined ? 'Your first project: three tips' : `${data.projectName}: three tips before you publish`),
  component: ({ projectName, productName, docsUrl, links }) => (
    <EmailLayout preview="From a new project to a published one" links={links}>
      <Heading as="h1" style={headingStyle}>
        {projectName ?? 'Your project'} is ready for its first publish
      </Heading>
      <Text style={textStyle}>1. Start from a template: every {productName} template publishes as it is.</Text>
      <Text style={textStyle}>2. Preview on a phone before you publish; most readers will see it there.</Text>
      <Text style={textStyle}>
        3. The <Link href={docsUrl}>publishing guide</Link> walks through a first publish in five minutes.
      </Text>
    </EmailLayout>
  ),
  sampleData: { projectName: 'Atlas' },
};

export default firstProjectTips;
