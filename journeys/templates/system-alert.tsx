import { Heading, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, headingStyle, textStyle } from './components/email-layout';

const schema = z.object({ ruleName: z.string().min(1), text: z.string().min(1) });

/** An alert rule's email channel (docs/operations.md): a plain operator notice, sent through the ledger like every email. */
const systemAlert: EmailTemplate<typeof schema> = {
  key: 'system-alert',
  description: 'Operator notice of an alert rule whose channel is email',
  category: 'transactional',
  systemOnly: true,
  schema,
  subject: ({ ruleName }) => `Waymark alert: ${ruleName}`,
  component: ({ ruleName, text, links }) => (
    <EmailLayout preview={`Waymark alert: ${ruleName}`} links={links}>
      <Heading as="h1" style={headingStyle}>
        {ruleName}
      </Heading>
      <Text style={textStyle}>{text}</Text>
    </EmailLayout>
  ),
  sampleData: {
    ruleName: 'Bounce rate',
    text: '[Waymark] Bounce rate: bounce_rate is 7.00% (over 200 emails sent in the last hour), above the threshold of 5.00%',
  },
};

export default systemAlert;
