/**
 * The environment integration tests run against: the local stack from scripts/stack.sh and a
 * separate database, so tests never touch development data. Each variable can be overridden.
 */
export function integrationEnv() {
  const env = process.env;
  return {
    NODE_ENV: 'test',
    // errors only: tests that break Redis or Temporal on purpose would fill the output with warnings
    LOG_LEVEL: env.TEST_LOG_LEVEL ?? 'error',
    DATABASE_URL: env.TEST_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_test',
    CACHE_URL: env.TEST_CACHE_URL ?? 'redis://127.0.0.1:6379/1',
    AUTH_SECRET: 'test-auth-secret-at-least-32-characters-long',
    EMAIL_PROVIDER_API_KEY: 'test:test',
    EMAIL_FROM: 'Waymark Tests <tests@waymark.local>',
    SES_ENDPOINT: env.TEST_SES_ENDPOINT ?? 'http://127.0.0.1:8005',
    TEMPORAL_ADDRESS: env.TEST_TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
    TEMPORAL_NAMESPACE: 'default',
    // a queue per test run, so a stale worker from another run never picks up these tasks
    TEMPORAL_TASK_QUEUE: env.WAYMARK_TEST_TASK_QUEUE ?? 'waymark-test',
    RATE_LIMIT_MAX: '100000',
    // every run's payloads sealed, as production requires (docs/security.md): the whole suite runs the codec
    ENCRYPTION_KEYS: 'test-1:5e2c9a71d04b8f36e1a7c2d95b08f4e3a6d1c7b29e5f08a4d3c6b1e7f92a05d8',
  };
}
