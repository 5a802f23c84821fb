import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { testRecipientCount } from './broadcast-audience';
import { checkBroadcastData, recipientTemplateData, templateProps } from './broadcast-template-data';

const template = {
  key: 'invite',
  schema: z.object({ orgName: z.string().min(1), firstName: z.string().optional(), seats: z.number().int().default(1) }),
  subject: () => 'Join us',
  component: () => null as never,
  sampleData: { orgName: 'Acme' },
} as unknown as EmailTemplate;

describe('broadcast template data', () => {
  it('reads the props a template declares', () => {
    expect(Object.keys(templateProps(template))).toEqual(['orgName', 'firstName', 'seats']);
  });

  it('refuses a data key the template does not declare, or a value its prop refuses, naming the prop', () => {
    expect(() => checkBroadcastData(template, { orgName: 'Acme', seats: 3 }, 'data')).not.toThrow();
    expect(() => checkBroadcastData(template, { coupon: 'X' }, 'data')).toThrow("data.coupon: template 'invite' declares no prop 'coupon'");
    expect(() => checkBroadcastData(template, { seats: 'many' }, 'variants[1].data')).toThrow(/^variants\[1\]\.data\.seats: /);
    // a prop data leaves out may come from each contact: not an error at create
    expect(() => checkBroadcastData(template, {}, 'data')).not.toThrow();
  });

  it("fills props from data, then the contact's properties of the same name; undefined when a required one is still missing", () => {
    expect(recipientTemplateData(template, { orgName: 'Acme' }, { firstName: 'Ada', plan: 'pro' })).toEqual({ orgName: 'Acme', firstName: 'Ada' });
    expect(recipientTemplateData(template, { orgName: 'Acme', firstName: 'Team' }, { firstName: 'Ada' })).toEqual({ orgName: 'Acme', firstName: 'Team' });
    expect(recipientTemplateData(template, {}, { orgName: 'Globex' })).toEqual({ orgName: 'Globex' });
    expect(recipientTemplateData(template, {}, { firstName: 'Ada' })).toBeUndefined();
  });

  it('gives the A/B test its fraction of the audience, at least one recipient per variant', () => {
    const abTest = { testFraction: 0.1, metric: 'human_clicks', waitMinutes: 60 } as const;
    expect(testRecipientCount(1000, abTest, 2)).toBe(100);
    expect(testRecipientCount(10, abTest, 3)).toBe(3);
    expect(testRecipientCount(2, abTest, 3)).toBe(2);
  });
});
