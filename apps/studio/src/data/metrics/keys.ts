export const metricKeys = {
  all: ['metrics'] as const,
  lastWeek: ['metrics', 'last-week'] as const,
  activity: (query: { hours: number; days: number }) => [...metricKeys.all, 'activity', query] as const,
};
