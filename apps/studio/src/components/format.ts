const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

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

export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : value.toLocaleString();
}
