import { Button, Column, Heading, Row, Section, Text } from '@react-email/components';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { EmailLayout, buttonStyle, headingStyle, textStyle } from './components/email-layout';

const schema = z.object({
  orderId: z.string().min(1),
  items: z.array(z.object({ name: z.string().min(1), quantity: z.coerce.number().int().positive(), price: z.coerce.number().nonnegative() })).min(1),
  currency: z.string().length(3).default('USD'),
  orderUrl: z.url().optional(),
});

function money(amount: number, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(amount);
}

/** Transactional example (POST /v1/emails): an order receipt. */
const orderReceipt: EmailTemplate<typeof schema> = {
  key: 'order-receipt',
  description: 'Transactional receipt for an order',
  category: 'transactional',
  schema,
  subject: (data) => `Your receipt for order ${data.orderId}`,
  component: ({ orderId, items, currency, orderUrl, links }) => {
    const total = items.reduce((sum, item) => sum + item.quantity * item.price, 0);
    return (
      <EmailLayout preview={`Receipt for order ${orderId}: ${money(total, currency)}`} links={links}>
        <Heading as="h1" style={headingStyle}>
          Thanks for your order
        </Heading>
        <Text style={textStyle}>Order {orderId}</Text>
        <Section>
          {items.map((item, index) => (
            <Row key={`${item.name}-${index}`}>
              <Column style={{ ...textStyle, fontSize: 14 }}>
                {item.quantity} × {item.name}
              </Column>
              <Column align="right" style={{ ...textStyle, fontSize: 14 }}>
                {money(item.quantity * item.price, currency)}
              </Column>
            </Row>
          ))}
          <Row>
            <Column style={{ ...textStyle, fontWeight: 600 }}>Total</Column>
            <Column align="right" style={{ ...textStyle, fontWeight: 600 }}>
              {money(total, currency)}
            </Column>
          </Row>
        </Section>
        {orderUrl === undefined ? null : (
          <Button href={orderUrl} style={buttonStyle}>
            View your order
          </Button>
        )}
      </EmailLayout>
    );
  },
  sampleData: {
    orderId: 'A-1042',
    items: [{ name: 'Pro plan (monthly)', quantity: 1, price: 29 }],
    currency: 'USD',
    orderUrl: 'https://example.com/orders/A-1042',
  },
};

export default orderReceipt;
