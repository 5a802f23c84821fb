/** Where the unsubscribe and preference pages live; emails link here and the pages link to each other. */
export function unsubscribePageUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/v1/email/unsubscribe?token=${encodeURIComponent(token)}`;
}

export function preferencesPageUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/v1/email/preferences?token=${encodeURIComponent(token)}`;
}
