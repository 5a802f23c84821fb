/** The preference categories the deployment declares in code (journeys/categories.ts). */
export const categoryKeys = {
  all: ['categories'] as const,
};
