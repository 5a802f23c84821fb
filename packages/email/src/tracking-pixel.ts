/** The 42-byte transparent 1×1 GIF the open-tracking pixel answers (docs/email.md, Tracking). */
export const TRANSPARENT_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

export const PIXEL_CACHE_CONTROL = 'no-store, no-cache, must-revalidate';
