import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP relay to a shared service that a test can cut and restore on the same port: the client
 * behind it sees the service go down and come back while the shared service itself is never
 * touched (docs/contributing.md: tests never stop the shared services).
 */
export interface TcpRelay {
  port: number;
  /** closes the listener and every relayed connection */
  cut(): Promise<void>;
  /** listens again on the same port */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpRelay(target: { host: string; port: number }): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    server = createServer((client) => {
      const upstream = createConnection(target);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    const address = server.address();
    port = typeof address === 'object' && address !== null ? address.port : port;
  };
  const cut = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    server = undefined;
  };
  await listen();
  return { port, cut, restore: listen, close: cut };
}
