export const templateKeys = {
  all: ['templates'] as const,
  list: ['templates', 'list'] as const,
  render: (key: string, data: Record<string, unknown> | undefined, locale: string | undefined) => [...templateKeys.all, key, 'render', locale, data] as const,
};
