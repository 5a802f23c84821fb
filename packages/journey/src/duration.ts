/**
 * Human durations for journeys: '2 days', '3h', '90 minutes', '1 week', or milliseconds as a number.
 * Parsed to milliseconds here (rather than handing strings to Temporal) so a typo fails at start-up.
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

export function durationMs(duration: Duration): number {
  const ms = parseDuration(duration);
  if (ms === undefined) throw new Error(`Invalid duration '${String(duration)}' (examples: '2 days', '3 hours', '45 minutes')`);
  return ms;
}
