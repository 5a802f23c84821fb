import { createElement } from 'react';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EmailTemplate } from './email-template';
import { parseForTracking } from './link-tracking';
import { renderEmail } from './render-email';
import { REDACTED, redactedProps, redactSecrets, secretProps, secretValues } from './secret-props';

const schema = z.object({
  signInUrl: z.url().meta({ secret: true }),
  code: z.string().meta({ secret: true }).optional(),
  helpUrl: z.url().default('https://help.example.com'),
});
const magicLink: EmailTemplate<typeof schema> = {
  key: 'magic-link',
  schema,
  subject: () => 'Sign in',
  component: ({ signInUrl, helpUrl }) =>
    createElement('div', null, createElement('a', { href: signInUrl }, 'Sign in'), createElement('a', { href: helpUrl }, 'Help')),
  sampleData: { signInUrl: 'https://app.example.com/magic?token=sample' },
};
const live = { signInUrl: 'https://app.example.com/magic?token=live-123', helpUrl: 'https://help.example.com/x' };

describe('secret props', () => {
  it('are the props marked `.meta({ secret: true })`, under optional and default too', () => {
    expect(secretProps(magicLink as unknown as EmailTemplate)).toEqual(['signInUrl', 'code']);
  });

  it('are kept as the placeholder; what is kept names them as not sendable', () => {
    const kept = redactSecrets(magicLink as unknown as EmailTemplate, live);
    expect(kept).toEqual({ signInUrl: REDACTED, helpUrl: live.helpUrl });
    expect(redactedProps(magicLink as unknown as EmailTemplate, kept)).toEqual(['signInUrl']);
    expect(secretValues(magicLink as unknown as EmailTemplate, live)).toEqual([live.signInUrl]);
  });

  it('kept data renders with the placeholder where the secret was', async () => {
    const kept = redactSecrets(magicLink as unknown as EmailTemplate, live);
    const rendered = await renderEmail(magicLink as unknown as EmailTemplate, kept, { unsubscribeUrl: 'u', preferencesUrl: 'p' });
    expect(rendered.html).toContain(`href="${REDACTED}"`);
    expect(rendered.html).not.toContain('token=sample');
  });

  it('a link holding a secret is left alone by the link tracker; the others are tracked', () => {
    const html = `<a href="${live.signInUrl}">Sign in</a><a href="${live.helpUrl}">Help</a>`;
    expect(parseForTracking(html, [live.signInUrl]).urls).toEqual([live.helpUrl]);
    expect(parseForTracking(html).urls).toEqual([live.signInUrl, live.helpUrl]);
  });
});
