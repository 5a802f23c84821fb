/** A host on this machine: a local trial, docker-compose.yml's defaults, a test. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  return name === 'localhost' || name.endsWith('.localhost') || /^127\./.test(name) || name === '::1';
}

/** The host of a URL, or undefined for a value that is not one (the schema checks URLs where it must). */
export function urlHost(value: string): string | undefined {
  try {
    return new URL(value).hostname;
  } catch {
    return undefined;
  }
}
