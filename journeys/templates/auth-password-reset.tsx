import { Button, Heading, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, buttonStyle, headingStyle, textStyle } from './components/email-layout';

// the link holds a live credential: used for the send, kept as the placeholder (docs/email.md, "Secret props")
const schema = z.object({ resetUrl: z.url().meta({ secret: true }), expiresInMinutes: z.number().int().positive().default(15) });

/** Sent by POST /api/auth/request-password-reset (docs/auth.md); the link opens the studio's reset page. */
const authPasswordReset: EmailTemplate<typeof schema> = {
  key: 'auth-password-reset',
  description: 'Password reset link for a Waymark studio account',
  category: 'transactional',
  systemOnly: true,
  schema,
  subject: () => 'Reset your Waymark password',
  component: ({ resetUrl, expiresInMinutes, links }) => (
    <EmailLayout preview="Reset your Waymark password" links={links}>
      <Heading as="h1" style={headingStyle}>
        Reset your password
      </Heading>
      <Text style={textStyle}>Someone asked to reset the password of your Waymark account. If it was you, choose a new one:</Text>
      <Button href={resetUrl} style={buttonStyle}>
        Choose a new password
      </Button>
      <Text style={textStyle}>
        The link works once, for {expiresInMinutes} minutes. If you did not ask for it, ignore this email: your password stays as it is.
      </Text>
    </EmailLayout>
  ),
  sampleData: { resetUrl: 'http://localhost:3002/studio/reset-password?token=sample', expiresInMinutes: 15 },
};

export default authPasswordReset;
