import { Button, Heading, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, buttonStyle, headingStyle, textStyle } from './components/email-layout';

const schema = z.object({
  // the link holds a live credential: used for the send, kept as the placeholder (docs/email.md, "Secret props")
  acceptUrl: z.url().meta({ secret: true }),
  organizationName: z.string().min(1),
  inviterEmail: z.string().min(1),
  role: z.enum(['owner', 'admin', 'editor', 'viewer']),
  expiresInDays: z.number().int().positive().default(7),
});

/** Sent by POST /api/auth/organization/{orgId}/invite (docs/auth.md): the only way a new person gets an account. */
const authInvitation: EmailTemplate<typeof schema> = {
  key: 'auth-invitation',
  description: 'Invitation to join an organization in the Waymark studio',
  category: 'transactional',
  systemOnly: true,
  schema,
  subject: (data) => `You are invited to ${data.organizationName} on Waymark`,
  component: ({ acceptUrl, organizationName, inviterEmail, role, expiresInDays, links }) => (
    <EmailLayout preview={`${inviterEmail} invited you to ${organizationName}`} links={links}>
      <Heading as="h1" style={headingStyle}>
        Join {organizationName}
      </Heading>
      <Text style={textStyle}>
        {inviterEmail} invited you to {organizationName} on Waymark as {role === 'admin' || role === 'owner' ? 'an' : 'a'} {role}.
      </Text>
      <Button href={acceptUrl} style={buttonStyle}>
        Accept the invitation
      </Button>
      <Text style={textStyle}>The link works once, for {expiresInDays} days.</Text>
    </EmailLayout>
  ),
  sampleData: {
    acceptUrl: 'http://localhost:3002/studio/accept-invite?token=sample',
    organizationName: 'Default',
    inviterEmail: 'owner@example.com',
    role: 'editor',
    expiresInDays: 7,
  },
};

export default authInvitation;
