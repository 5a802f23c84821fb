import { ConfigError, loadConfig, settingsUnderCheck } from '@waymark/core/config/config';
import { unsafeSettings, unsafeSettingsMessage } from '@waymark/core/config/unsafe-settings';
import { createDatabase } from '@waymark/core/db/database';
import { assertMigrated } from '@waymark/core/db/migrator';
import { createLogger } from '@waymark/core/logging/logger';
import { startTracing } from '@waymark/core/logging/tracing';
import { missingWorkerNodeFlags } from './node-flags';
import { createWorker } from './worker';

/** config → deps → activities → Worker.create(workflow bundle); SIGTERM drains in-flight work. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`waymark worker: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger({ level: config.logLevel, name: 'worker', format: config.logFormat, traceIds: config.tracing.enabled });
  // before anything connects, so every client and interceptor finds the tracer (docs/operations.md, "Tracing")
  const tracing = await startTracing(config, 'waymark-worker');
  // the api's check (docs/security.md, "Production checklist"); the worker serves no webhook source
  const unsafe = unsafeSettings(settingsUnderCheck(config, []));
  if (config.isProduction && unsafe.length > 0) {
    console.error(`waymark worker: ${unsafeSettingsMessage(unsafe)}`);
    process.exit(1);
  }
  for (const warning of unsafe) logger.warn(`unsafe setting (production would refuse to start): ${warning}`);
  for (const warning of config.settingWarnings) logger.warn(`setting: ${warning}`);
  if (config.isProduction) {
    for (const flag of missingWorkerNodeFlags(process.execArgv)) {
      logger.warn(`node flag: ${flag} is missing from this worker's command line, which costs CPU on every run (docs/deploy.md)`);
    }
  }
  const db = createDatabase({
    connectionString: config.databaseUrl,
    applicationName: 'waymark-worker',
    traceContext: config.tracing.enabled,
    onIdleClientError: (error) => logger.warn({ err: error }, 'postgres: idle connection failed; the pool reconnects'),
  });
  try {
    await assertMigrated(db);
  } catch (error) {
    logger.fatal((error as Error).message);
    await db.destroy();
    process.exit(1);
  }
  const { worker, close } = await createWorker({
    config,
    db,
    logger,
    ensureSchedules: true,
    dispatchOutbound: config.webhooks.dispatch,
    relayEventEffects: true,
    tracing,
  });
  logger.info(`Waymark worker polling task queue "${config.temporal.taskQueue}" on ${config.temporal.address}, Node ${process.version}`);
  // Worker.run() installs its own SIGINT/SIGTERM handling: it stops polling and waits for
  // in-flight activities to finish (up to shutdownGraceTime) before resolving.
  await worker.run();
  await close();
  await db.destroy();
  await tracing?.shutdown();
  logger.info('worker stopped');
}

main().catch((error: unknown) => {
  console.error('waymark worker failed:', error);
  process.exit(1);
});
