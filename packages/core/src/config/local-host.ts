/** A host on this machine: a local trial, docker-compose.yml's defaults, a test. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  return name === 'localhost' || name.endsWith('.localhost') || /^127\./.test(name) || name === '::1';
}
