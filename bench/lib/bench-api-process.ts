/**
 * A bench's api as a child process (api-process.ts starts it): the app `buildApp` returns plus the
 * baseline routes, as listenBenchServer builds it in-process, configured from the environment
 * (benchEnv) on a database the parent prepared. Out of the parent's process so that the load
 * generator and the api do not share one event loop (on two cores, a shared one gave the generator half the api's).
 * IPC: `{ url }` once listening; 'drain' → waits for the tracking-event backlog, answers 'drained'.
 * SIGTERM: closes the server (requests in flight finish), drains the backlog, exits.
 */
import { listenBenchServer } from './bench-server';

async function main(): Promise<void> {
  const env = process.env as Record<string, string>;
  const { url, app, deps } = await listenBenchServer(env, {
    ...(env.BENCH_PING_TASK_QUEUE ? { pingTaskQueue: env.BENCH_PING_TASK_QUEUE } : {}),
  });
  process.on('message', (message) => {
    if (message === 'drain') void deps.trackingEvents.drain().then(() => process.send?.('drained'));
  });
  process.once('SIGTERM', () => {
    void (async () => {
      await app.close();
      await deps.trackingEvents.drain();
      await deps.close();
      process.exit(0);
    })();
  });
  process.send?.({ url });
}

main().catch((error: unknown) => {
  console.error('bench api failed:', error);
  process.exit(1);
});
