import { ConfigError, loadConfig } from '@waymark/core/config/config';
import { assertMigrated } from '@waymark/core/db/migrator';
import { createLogger } from '@waymark/core/logging/logger';
import { startTracing } from '@waymark/core/logging/tracing';
import { ensureFirstAdmin } from '@waymark/core/organizations/first-admin';
import { unsafeSettingsMessage } from '@waymark/core/config/unsafe-settings';
import { buildApp } from './app';
import { createAppDeps, unsafeApiSettings } from './deps';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`waymark api: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger({ level: config.logLevel, name: 'api', format: config.logFormat, traceIds: config.tracing.enabled });
  // before the app is built: its Fastify instrumentation and Temporal client find the tracer (docs/operations.md, "Tracing")
  const tracing = await startTracing(config, 'waymark-api');
  // before anything connects: production refuses unsafe settings, development names them
  const unsafe = unsafeApiSettings(config);
  if (config.isProduction && unsafe.length > 0) {
    console.error(`waymark api: ${unsafeSettingsMessage(unsafe)}`);
    process.exit(1);
  }
  for (const warning of unsafe) logger.warn(`unsafe setting (production would refuse to start): ${warning}`);
  for (const warning of config.settingWarnings) logger.warn(`setting: ${warning}`);
  const deps = await createAppDeps(config, logger);
  try {
    await assertMigrated(deps.db);
  } catch (error) {
    logger.fatal((error as Error).message);
    await deps.close();
    process.exit(1);
  }
  const firstAdmin = await ensureFirstAdmin(deps.db, config.studioAdmin);
  if (firstAdmin !== undefined) {
    const password =
      firstAdmin.generatedPassword === undefined
        ? 'the password in STUDIO_ADMIN_PASSWORD'
        : `generated password, shown only now: ${firstAdmin.generatedPassword}`;
    logger.warn(`First administrator created from STUDIO_ADMIN_EMAIL: ${firstAdmin.user.email}; ${password}`);
  }
  const app = await buildApp({ deps, logger });
  // Slow clients must not hold sockets forever; keep-alive stays below typical LB idle timeouts.
  app.server.requestTimeout = 30_000;
  app.server.keepAliveTimeout = 65_000;
  await app.listen({ port: config.port, host: config.host });
  // the runtime in the first line an operator reads (not in /v1/health, which anyone may call)
  logger.info(`Waymark API listening on ${config.apiPublicUrl} (docs at ${config.apiPublicUrl}/docs), Node ${process.version}`);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info(`${signal} received, closing`);
    await app.close();
    await deps.close();
    await tracing?.shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  console.error('waymark api failed to start:', error);
  process.exit(1);
});
