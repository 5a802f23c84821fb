import { Button, Heading, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, buttonStyle, headingStyle, textStyle } from './components/email-layout';
import { appUrl, optionalText } from './components/fields';

const schema = z.object({ projectName: optionalText, projectUrl: appUrl('/projects') });

/** first-project, two days in, for people who have not published yet. */
const firstProjectNudge: EmailTemplate<typeof schema> = {
  key: 'first-project-nudge',
  description: 'A nudge to publish a project created two days ago',
  schema,
  subject: (data) => (data.projectName === undefined ? 'Your project is one click from published' : `${data.projectName} is one click from published`),
  component: ({ projectName, projectUrl, links }) => (
    <EmailLayout preview="Publish it today" links={links}>
      <Heading as="h1" style={headingStyle}>
        {projectName ?? 'Your project'} is waiting
      </Heading>
      <Text style={textStyle}>You created it two days ago. Publishing takes one click, and you can change anything afterwards.</Text>
      <Button href={projectUrl} style={buttonStyle}>
        Open the project
      </Button>
    </EmailLayout>
  ),
  sampleData: { projectName: 'Atlas' },
};

export default firstProjectNudge;
