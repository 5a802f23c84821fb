const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const hours = new Intl.NumberFormat(undefined, { style: 'unit', unit: 'hour', unitDisplay: 'long' });

/** "Nov 23, 2026, 1:45 PM", or an em dash for a missing timestamp. */
export function formatDate(value: string | null | undefined): string {
  return value === null || value === undefined ? '—' : dateTime.format(new Date(value));
}

/** "3 minutes ago" style, for last-seen columns. */
export function formatAgo(value: string | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const seconds = (new Date(value).getTime() - Date.now()) / 1000;
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  for (const [unit, size] of units) if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  return relative.format(Math.round(seconds), 'second');
}

/** "1 hour", "7.5 hours": a duration set in hours (a setting such as REPUTATION_COOLDOWN_HOURS). */
export function formatHours(value: number): string {
  return hours.format(value);
}

export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : value.toLocaleString();
}
