import { afterAll, beforeAll } from 'vitest';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { loadConfig, type Config } from '@waymark/core/config/config';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { createEmailDeps } from '@waymark/core/emails/create-email-deps';
import type { EmailDeps } from '@waymark/core/emails/email-deps';
import { deploymentCategories } from './deployment-categories';
import { integrationEnv } from './test-env';

/**
 * The send path as the worker builds it, over the integration database and the SES emulator, for
 * the describe block that calls this: opened before its tests, closed after them. Read `db` and
 * `email` inside the tests (they exist from beforeAll on).
 */
export function useEmailDeps(): { readonly config: Config; readonly db: Db; readonly email: EmailDeps } {
  const config = loadConfig(integrationEnv());
  let opened: { db: Db; email: EmailDeps } | undefined;
  beforeAll(() => {
    const db = createDatabase({ connectionString: config.databaseUrl, max: 4 });
    opened = { db, email: createEmailDeps(config, { db, templates: emailTemplates, categories: deploymentCategories }) };
  });
  afterAll(() => opened?.db.destroy());
  const open = () => {
    if (opened === undefined) throw new Error('useEmailDeps: read db and email inside a test, not while the describe block is collected');
    return opened;
  };
  return {
    config,
    get db() {
      return open().db;
    },
    get email() {
      return open().email;
    },
  };
}
