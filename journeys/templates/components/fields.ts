import { z } from 'zod';

/**
 * Data fields shared by the example templates. Journeys pass trigger properties straight
 * through, so absent values arrive as null as often as undefined: both mean "not known".
 */
export const optionalText = z
  .string()
  .nullish()
  .transform((value) => (value === null || value === undefined || value.trim() === '' ? undefined : value.trim()))
  // a text prop (secret-props.ts): the templates only print it (and ask whether it is given), so a
  // broadcast renders them once for all its recipients (render-plan.ts)
  .meta({ text: true });

export const productName = z.string().min(1).default('Waymark');
export const appUrl = (path: string) => z.url().default(`https://app.example.com${path}`);

/** "Hi Ada," or "Hi there," */
export function greeting(firstName: string | undefined): string {
  return firstName === undefined ? 'Hi there,' : `Hi ${firstName},`;
}
