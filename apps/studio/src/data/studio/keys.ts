/** Facts about the installation the studio needs before or beside the pages. */
export const studioKeys = {
  status: ['studio', 'status'] as const,
  links: ['studio', 'links'] as const,
};
