import type { components } from '../../api/schema';

type Audience = components['schemas']['Broadcast']['audience'];

/** "segment Active users", "list newsletter" or "every contact", for lists and headers. */
export function audienceLabel(audience: Audience, segmentName: (id: string) => string | undefined): string {
  if ('all' in audience) return 'every contact';
  if ('listKey' in audience) return `list ${audience.listKey}`;
  return `segment ${segmentName(audience.segmentId) ?? audience.segmentId.slice(0, 8)}`;
}
