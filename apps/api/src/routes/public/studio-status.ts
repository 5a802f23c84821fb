import { z } from 'zod';
import { hasAnyUser } from '@waymark/core/studio/studio-status';
import type { AppDeps } from '../../deps';
import type { RoutePlugin } from '../../http/type-provider';

/** Public: what the studio's sign-in screen needs before anyone is signed in. */
export const studioStatusRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/studio/status',
    {
      schema: {
        tags: ['studio'],
        summary: 'Whether any user exists (no users: the studio explains how to create the first admin from the CLI)',
        response: { 200: z.object({ hasUsers: z.boolean() }) },
      },
    },
    async () => ({ hasUsers: await hasAnyUser(deps.db) }),
  );
};
