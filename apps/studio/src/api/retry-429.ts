/** The longest Retry-After the studio waits out by itself; past it the page shows the slow-down panel at once. */
export const MAX_RETRY_WAIT_SECONDS = 10;

/** The Retry-After of an answer in seconds (the API sends whole seconds), if it has one. */
export function retryAfterSeconds(response: Response): number | undefined {
  const header = response.headers.get('retry-after');
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

/**
 * fetch for the studio's API calls: a 429 is waited out once, for the Retry-After the API gave
 * (docs/studio.md, "Slow down"), then tried again. A second 429, or a wait longer than
 * MAX_RETRY_WAIT_SECONDS, is returned as it is: the page shows its slow-down panel.
 */
export async function fetchRetrying429(request: Request): Promise<Response> {
  // kept before the first attempt reads the body, so a POST can be sent again as it was
  const again = request.clone();
  const response = await fetch(request);
  if (response.status !== 429) return response;
  const wait = retryAfterSeconds(response);
  if (wait === undefined || wait > MAX_RETRY_WAIT_SECONDS) return response;
  await response.body?.cancel();
  await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  return fetch(again);
}
