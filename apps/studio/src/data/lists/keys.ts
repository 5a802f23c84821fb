/** Mailing lists known to the installation. */
export const listKeys = {
  all: ['lists'] as const,
};
