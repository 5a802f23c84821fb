import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/*
 * Ports for servers whose URL must be known before they listen (a private Temporal dev server, an
 * api, an emulator), taken BELOW the kernel's ephemeral range. A port the kernel hands out for
 * `listen(0)` comes from that range, the same one every outgoing connection's local port is drawn
 * from: between the check and the server's own listen, a connection to PostgreSQL or Temporal
 * could take it, and the server failed with "address already in use" (seen in a benchmark's
 * private Temporal dev server, bench/HISTORY.md, twenty-first round). Below the range only another
 * listener can take a port, and each candidate is checked by listening on it.
 */

/** The first port of the kernel's ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range), else its default. */
export function firstEphemeralPort(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 1024) return low;
  } catch {
    // not Linux: the default of Linux and most BSDs, below
  }
  return 32768;
}

const FIRST_CANDIDATE = 10_000;

/** Listens on `port` (0: one the kernel picks); undefined when it is taken. */
function listenOn(port: number): Promise<{ server: Server; port: number } | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address !== null ? address.port : port });
    });
  });
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** `count` distinct TCP ports on 127.0.0.1 that were free a moment ago, outside the ephemeral range. */
export async function freePorts(count: number): Promise<number[]> {
  const low = firstEphemeralPort();
  const span = low - FIRST_CANDIDATE;
  const held: Server[] = [];
  const ports: number[] = [];
  try {
    for (let tries = 0; ports.length < count; tries += 1) {
      if (tries >= 200) throw new Error(`no free port found between ${FIRST_CANDIDATE} and ${low - 1} after 200 tries`);
      // a range that leaves no room below it: the kernel's pick, as before
      const candidate = span >= 1000 ? FIRST_CANDIDATE + Math.floor(Math.random() * span) : 0;
      // each is held until all are found, so a repeat candidate is refused like any taken port
      const listening = await listenOn(candidate);
      if (listening === undefined) continue;
      held.push(listening.server);
      ports.push(listening.port);
    }
    return ports;
  } finally {
    await Promise.all(held.map(close));
  }
}

/** A TCP port that was free a moment ago (for a server whose URL must be known before it listens). */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}
