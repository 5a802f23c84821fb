import type { components } from '../../api/schema';
import type { BroadcastCreate, BroadcastPatch } from '../../data/broadcasts/broadcast-mutations';

type Broadcast = components['schemas']['Broadcast'];
type Audience = Broadcast['audience'];
type Metric = NonNullable<Broadcast['abTest']>['metric'];

export type AudienceKind = 'segment' | 'list' | 'all';
export type ScheduleKind = 'now' | 'at' | 'local';

export interface VariantState {
  id: string;
  subject: string;
  /** empty: the broadcast's template */
  templateKey: string;
}

/** The composer's fields as typed (text for numbers and JSON, so a half-typed value stays on screen). */
export interface ComposerState {
  name: string;
  templateKey: string;
  category: string;
  subject: string;
  audienceKind: AudienceKind;
  segmentId: string;
  listKey: string;
  dataText: string;
  variants: VariantState[];
  abTest: boolean;
  testPercent: string;
  metric: Metric;
  waitMinutes: string;
  schedule: ScheduleKind;
  /** `datetime-local` value in the browser's time zone */
  at: string;
  localTime: string;
}

export const metrics: { value: Metric; label: string }[] = [
  { value: 'human_clicks', label: 'click rate (people)' },
  { value: 'human_opens', label: 'open rate (people)' },
];

const pad = (value: number) => String(value).padStart(2, '0');

/** An instant as a `datetime-local` value in the browser's time zone. */
export function localInput(iso: string): string {
  const date = new Date(iso);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A fresh variant id after the ones in use: a, b, c… */
export function nextVariantId(variants: VariantState[]): string {
  const used = new Set(variants.map((variant) => variant.id));
  return [...'abcdefghij'].find((letter) => !used.has(letter)) ?? `v${variants.length + 1}`;
}

/**
 * The fields of a saved draft, or a new broadcast's: no template chosen for the person, as the
 * first one may need props their contacts lack (its preview would only say "missing data").
 */
export function stateOf(broadcast: Broadcast | undefined): ComposerState {
  const audience = broadcast?.audience;
  const schedule: ScheduleKind = broadcast?.localTime != null ? 'local' : broadcast?.scheduledAt != null ? 'at' : 'now';
  return {
    name: broadcast?.name ?? '',
    templateKey: broadcast?.templateKey ?? '',
    category: broadcast?.category ?? '',
    subject: broadcast?.subject ?? '',
    audienceKind: audience === undefined ? 'segment' : 'segmentId' in audience ? 'segment' : 'listKey' in audience ? 'list' : 'all',
    segmentId: audience !== undefined && 'segmentId' in audience ? audience.segmentId : '',
    listKey: audience !== undefined && 'listKey' in audience ? audience.listKey : '',
    dataText: broadcast === undefined || Object.keys(broadcast.data).length === 0 ? '{}' : JSON.stringify(broadcast.data, null, 2),
    variants: (broadcast?.variants ?? []).map((variant) => ({ id: variant.id, subject: variant.subject ?? '', templateKey: variant.templateKey ?? '' })),
    abTest: broadcast?.abTest != null,
    testPercent: String(Math.round((broadcast?.abTest?.testFraction ?? 0.2) * 100)),
    metric: broadcast?.abTest?.metric ?? 'human_clicks',
    waitMinutes: String(broadcast?.abTest?.waitMinutes ?? 240),
    schedule,
    at: broadcast?.scheduledAt == null ? '' : localInput(broadcast.scheduledAt),
    localTime: broadcast?.localTime ?? '09:00',
  };
}

/** Who the fields name, or undefined while a segment or list is still to be chosen. */
export function audienceOf(state: ComposerState): Audience | undefined {
  if (state.audienceKind === 'all') return { all: true };
  if (state.audienceKind === 'segment') return state.segmentId === '' ? undefined : { segmentId: state.segmentId };
  return state.listKey === '' ? undefined : { listKey: state.listKey };
}

/** The template data typed as JSON, or what is wrong with it. */
export function dataOf(text: string): { data: Record<string, unknown> } | { problem: string } {
  try {
    const value: unknown = JSON.parse(text.trim() === '' ? '{}' : text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { data: value as Record<string, unknown> };
    return { problem: 'Template data must be a JSON object.' };
  } catch (error) {
    return { problem: `Template data is not valid JSON: ${(error as Error).message}` };
  }
}

/**
 * The API body for the fields (create, and the same as a patch that also clears what was
 * removed), or the first thing the API would refuse, in words. The API stays the authority
 * (template props, unknown keys); this only saves a round trip for what the form can see.
 */
export function bodyOf(state: ComposerState): { create: BroadcastCreate; patch: BroadcastPatch } | { problem: string } {
  if (state.name.trim() === '') return { problem: 'Give the broadcast a name.' };
  if (state.templateKey === '') return { problem: 'Choose a template.' };
  if (state.category === '') return { problem: 'Choose a category.' };
  const audience = audienceOf(state);
  if (audience === undefined) return { problem: state.audienceKind === 'segment' ? 'Choose a segment.' : 'Choose a list.' };
  const parsed = dataOf(state.dataText);
  if ('problem' in parsed) return parsed;
  if (state.variants.length === 1 || state.variants.length > 5) return { problem: 'Variants come in twos to fives: add another or remove them all.' };
  const ids = state.variants.map((variant) => variant.id.trim());
  if (ids.some((id) => !/^[A-Za-z0-9_-]{1,64}$/.test(id))) return { problem: 'Each variant id is 1–64 letters, digits, dashes or underscores.' };
  if (new Set(ids).size !== ids.length) return { problem: 'Each variant needs an id of its own.' };
  const percent = Number(state.testPercent);
  const wait = Number(state.waitMinutes);
  const abTesting = state.abTest && state.variants.length >= 2;
  if (abTesting && !(percent >= 2 && percent <= 50)) return { problem: 'The test share is 2 % to 50 % of the audience.' };
  if (abTesting && !(Number.isInteger(wait) && wait >= 5 && wait <= 10080)) return { problem: 'The winner is picked 5 to 10,080 minutes after the test.' };
  const at = state.schedule === 'now' || state.at === '' ? undefined : new Date(state.at);
  if (state.schedule === 'at' && at === undefined) return { problem: 'Choose when to send.' };
  if (at !== undefined && Number.isNaN(at.getTime())) return { problem: 'The send time is not a date.' };
  if (state.schedule === 'local' && !/^([01]\d|2[0-3]):[0-5]\d$/.test(state.localTime)) return { problem: 'The local time is HH:MM, such as 09:00.' };

  const variants = state.variants.map((variant) => ({
    id: variant.id.trim(),
    ...(variant.subject.trim() === '' ? {} : { subject: variant.subject.trim() }),
    ...(variant.templateKey === '' ? {} : { templateKey: variant.templateKey }),
  }));
  const abTest = abTesting ? { testFraction: percent / 100, metric: state.metric, waitMinutes: wait } : undefined;
  const scheduledAt = at?.toISOString();
  const localTime = state.schedule === 'local' ? state.localTime : undefined;
  const subject = state.subject.trim() === '' ? undefined : state.subject.trim();
  const data = Object.keys(parsed.data).length === 0 ? undefined : parsed.data;
  const base = { name: state.name.trim(), templateKey: state.templateKey, category: state.category, audience };
  const create: BroadcastCreate = {
    ...base,
    ...(data === undefined ? {} : { data }),
    ...(subject === undefined ? {} : { subject }),
    ...(scheduledAt === undefined ? {} : { scheduledAt }),
    ...(localTime === undefined ? {} : { localTime }),
    ...(variants.length === 0 ? {} : { variants }),
    ...(abTest === undefined ? {} : { abTest }),
  };
  const patch: BroadcastPatch = {
    ...base,
    data: data ?? null,
    subject: subject ?? null,
    scheduledAt: scheduledAt ?? null,
    localTime: localTime ?? null,
    variants: variants.length === 0 ? null : variants,
    abTest: abTest ?? null,
  };
  return { create, patch };
}

/**
 * The data one recipient's email is rendered with, as the send fills it: the broadcast's data,
 * then for each prop the template takes (known here from its sample data) that the data lacks, the
 * contact's property of the same name.
 */
export function recipientData(data: Record<string, unknown>, templateProps: string[], properties: Record<string, unknown>): Record<string, unknown> {
  const filled = { ...data };
  for (const prop of templateProps) if (filled[prop] === undefined && properties[prop] !== undefined) filled[prop] = properties[prop];
  return filled;
}
