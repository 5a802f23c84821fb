import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { firstEphemeralPort, freePort, freePorts } from './free-port';

describe('freePorts', () => {
  it('picks distinct ports below the ephemeral range, where outgoing connections cannot take them', async () => {
    const low = firstEphemeralPort();
    const ports = await freePorts(8);
    expect(new Set(ports).size).toBe(8);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(low);
    }
  });

  it('gives a port a server can listen on', async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });
});
