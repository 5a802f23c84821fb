/**
 * Wall-clock time in a recipient's IANA time zone, on the built-in Intl API (its zone data ships
 * with Node and is available inside Temporal's workflow sandbox, so journey code stays
 * deterministic: the same instant and zone always give the same answer).
 */

/** 'HH:MM', 24-hour: '09:00', '21:30'. */
export type LocalTime = `${number}:${number}`;

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface QuietHours {
  /** start of the window, local time of the recipient ('21:00') */
  from: LocalTime;
  /** end of the window ('08:00'); before `from` means the window spans midnight */
  to: LocalTime;
}

const LOCAL_TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;
// IANA names ('Europe/Paris', 'UTC', 'America/Argentina/Buenos_Aires'); Intl alone would also take offsets like '+01:00'
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;
const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, format);
  }
  return format;
}

/** Whether `name` is an IANA time zone name this runtime knows. */
export function isTimeZone(name: unknown): name is string {
  if (typeof name !== 'string' || !ZONE_NAME.test(name)) return false;
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

/** Minutes after midnight of 'HH:MM', or undefined when it is not a 24-hour time. */
export function parseLocalTime(time: string): number | undefined {
  const match = LOCAL_TIME.exec(time);
  return match === null ? undefined : Number(match[1]) * 60 + Number(match[2]);
}

function minutesOf(time: string, label: string): number {
  const minutes = parseLocalTime(time);
  if (minutes === undefined) throw new Error(`${label} must be a 24-hour time 'HH:MM', got '${time}'`);
  return minutes;
}

interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

function wallTime(ms: number, zone: string): WallTime & { second: number } {
  const parts: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(new Date(ms))) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!, second: parts.second! };
}

/** The zone's offset from UTC at `ms`, in ms (Paris in winter: +3 600 000). */
function offsetAt(ms: number, zone: string): number {
  const wall = wallTime(ms, zone);
  const floored = Math.floor(ms / 1000) * 1000;
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second) - floored;
}

/**
 * The instant a wall time happens in `zone`. A time that happens twice (clocks going back) is the
 * first; a time that does not happen (clocks going forward) is moved on by the gap (02:30 → 03:30).
 */
function instantOf(wall: WallTime, zone: string): number {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  const before = offsetAt(asUtc - DAY_MS / 2, zone);
  const after = offsetAt(asUtc + DAY_MS / 2, zone);
  const candidates = [asUtc - before, asUtc - after].filter((ms) => {
    const seen = wallTime(ms, zone);
    return seen.hour === wall.hour && seen.minute === wall.minute && seen.day === wall.day;
  });
  return candidates.length > 0 ? Math.min(...candidates) : asUtc - before;
}

/**
 * The next instant after `now` when it is `time` in `zone`, on one of `weekdays` (default: any day).
 * Strictly after, so a loop of sleep-then-send sends once per such time, never twice at 09:00.
 */
export function nextLocalTime(now: number, zone: string, time: string, weekdays?: readonly Weekday[]): number {
  const minutes = minutesOf(time, 'sleepUntilLocal time');
  if (weekdays !== undefined && (weekdays.length === 0 || weekdays.some((day) => !WEEKDAYS.includes(day))))
    throw new Error(`weekdays must be a non-empty list of ${WEEKDAYS.join(', ')}`);
  const today = wallTime(now, zone);
  for (let offset = 0; offset <= 8; offset += 1) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + offset));
    if (weekdays !== undefined && !weekdays.includes(WEEKDAYS[date.getUTCDay()]!)) continue;
    const at = instantOf(
      { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour: Math.floor(minutes / 60), minute: minutes % 60 },
      zone,
    );
    if (at > now) return at;
  }
  throw new Error(`no ${time} found in the next week in ${zone}`);
}

/** Problems of a quietHours option (empty when valid). */
export function quietHoursProblems(quietHours: unknown): string[] {
  if (quietHours === null || typeof quietHours !== 'object') return [`quietHours must be {from: 'HH:MM', to: 'HH:MM'}`];
  const { from, to } = quietHours as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof from !== 'string' || parseLocalTime(from) === undefined) problems.push(`quietHours.from must be a 24-hour time 'HH:MM'`);
  if (typeof to !== 'string' || parseLocalTime(to) === undefined) problems.push(`quietHours.to must be a 24-hour time 'HH:MM'`);
  if (problems.length === 0 && from === to) problems.push('quietHours.from and quietHours.to must differ');
  return problems;
}

/** When the quiet hours around `now` end in `zone`, or undefined when `now` is outside them. */
export function quietHoursEnd(now: number, zone: string, quietHours: QuietHours): number | undefined {
  const from = minutesOf(quietHours.from, 'quietHours.from');
  const to = minutesOf(quietHours.to, 'quietHours.to');
  const wall = wallTime(now, zone);
  const minute = wall.hour * 60 + wall.minute;
  const inside = from < to ? minute >= from && minute < to : minute >= from || minute < to;
  return inside ? nextLocalTime(now, zone, quietHours.to) : undefined;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** '2026-12-01T08:00+01:00': the instant as the recipient's clock shows it, with the offset. */
export function formatLocal(ms: number, zone: string): string {
  const wall = wallTime(ms, zone);
  const offset = Math.round(offsetAt(ms, zone) / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${wall.year}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
