/**
 * The one duration grammar of Waymark (docs/contributing.md, "One home per rule"): a journey's waits,
 * a delivery policy's cap windows, a segment's `within` and the studio's segment editor all read
 * durations here. Spellings: compact ('30d', '12h', '90m', '2w'), words ('2 days', '90 minutes',
 * '1 week'), parts that add up ('1 day 12 hours', '1h, 30m'), decimals ('1.5h'), any case; in code
 * also milliseconds as a number. `m` is minutes. Parsed to milliseconds here (rather than handing
 * strings to Temporal) so a typo fails at start-up.
 */
export type Duration = string | number;

const UNIT_MS: Record<string, number> = {
  ms: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1_000,
  sec: 1_000,
  secs: 1_000,
  second: 1_000,
  seconds: 1_000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  w: 604_800_000,
  week: 604_800_000,
  weeks: 604_800_000,
};

const PART = /(\d+(?:\.\d+)?)\s*([a-z]+)/g;

/** Milliseconds for a duration, or undefined when it cannot be read. Parts add up: '1 day 12 hours'. */
export function parseDuration(duration: Duration): number | undefined {
  if (typeof duration === 'number') return Number.isFinite(duration) && duration >= 0 ? duration : undefined;
  const text = duration
    .trim()
    .toLowerCase()
    .replace(/\band\b|,/g, ' ');
  if (text.length === 0) return undefined;
  let total = 0;
  let consumed = '';
  for (const match of text.matchAll(PART)) {
    const unit = UNIT_MS[match[2] ?? ''];
    if (unit === undefined) return undefined;
    total += Number(match[1]) * unit;
    consumed += match[0];
  }
  // reject leftovers such as '2 dayz' or '3 days banana'
  if (consumed.replace(/\s+/g, '') !== text.replace(/\s+/g, '')) return undefined;
  return total;
}

/** How a refusal describes the grammar, so every reader of a duration says the same thing. */
export const DURATION_EXAMPLES = "'30d', '12h', '90m', '2 weeks' or '1 day 12 hours'";

/** Milliseconds for a duration written as text (an API field, a policy file), or undefined when it cannot be read or is not longer than 0. */
export function parsePositiveDuration(text: string): number | undefined {
  const ms = parseDuration(text);
  return ms !== undefined && ms > 0 ? ms : undefined;
}

export function durationMs(duration: Duration): number {
  const ms = parseDuration(duration);
  if (ms === undefined) throw new Error(`Invalid duration '${String(duration)}' (examples: ${DURATION_EXAMPLES})`);
  return ms;
}
