import type { ReactNode } from 'react';
import { Body, Container, Head, Hr, Html, Link, Preview, Section, Text } from '@react-email/components';
import type { EmailLinks } from '@waymark/email/email-template';
import { resolveLocale, translator } from '@waymark/email/message-catalog';
import { layoutMessages } from './layout-messages';

/**
 * Shared frame of every template: preview text, a readable column and the unsubscribe footer, in
 * `locale` (the template's; English when the footer has no such language or none is given).
 */
export function EmailLayout({ preview, links, locale, children }: { preview: string; links: EmailLinks; locale?: string; children: ReactNode }) {
  const footerLocale = resolveLocale(layoutMessages, locale);
  const t = translator(layoutMessages, footerLocale);
  return (
    <Html lang={locale ?? layoutMessages.defaultLocale}>
      <Head />
      <Preview>{preview}</Preview>
      <Body style={{ backgroundColor: '#f6f7f9', fontFamily: '-apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif', margin: 0, padding: '24px 0' }}>
        <Container style={{ backgroundColor: '#ffffff', borderRadius: 8, maxWidth: 560, padding: '32px 28px' }}>
          {children}
          <Hr style={{ borderColor: '#e5e7eb', margin: '32px 0 16px' }} />
          <Section>
            <Text style={{ color: '#6b7280', fontSize: 12, lineHeight: '18px', margin: 0 }}>
              {t('reason')}{' '}
              <Link href={links.unsubscribeUrl} style={{ color: '#6b7280', textDecoration: 'underline' }}>
                {t('unsubscribe')}
              </Link>{' '}
              ·{' '}
              <Link href={links.preferencesUrl} style={{ color: '#6b7280', textDecoration: 'underline' }}>
                {t('preferences')}
              </Link>
            </Text>
          </Section>
        </Container>
      </Body>
    </Html>
  );
}

export const textStyle = { color: '#111827', fontSize: 16, lineHeight: '26px' } as const;
export const headingStyle = { color: '#111827', fontSize: 22, fontWeight: 600, margin: '0 0 16px' } as const;
export const buttonStyle = {
  backgroundColor: '#4f46e5',
  borderRadius: 6,
  color: '#ffffff',
  display: 'inline-block',
  fontSize: 15,
  fontWeight: 600,
  padding: '12px 20px',
  textDecoration: 'none',
} as const;
