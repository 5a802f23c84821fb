import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { withScratchDatabase } from '../../../../test/scratch-database';
import { createDatabase } from '../db/database';
import { createAdmin, DEFAULT_ORGANIZATION } from './admin-accounts';

describe('createAdmin on an installation with no organization yet', () => {
  it('admins created at the same moment share one default organization: the first owns it, the others join it', async () => {
    await withScratchDatabase(async (url) => {
      const db = createDatabase({ connectionString: url, max: 8 });
      try {
        const created = await Promise.all(
          [1, 2, 3, 4, 5, 6, 7, 8].map((n) =>
            createAdmin(db, { email: `first-${n}-${randomUUID().slice(0, 8)}@waymark-test.example`, password: `pw-${randomUUID()}` }),
          ),
        );
        const organizations = await db.selectFrom('organizations').select(['id', 'slug']).execute();
        expect(organizations).toEqual([{ id: expect.any(String), slug: DEFAULT_ORGANIZATION.slug }]);
        const members = await db
          .selectFrom('organizationMembers as m')
          .innerJoin('users as u', 'u.id', 'm.userId')
          .select(['m.userId', 'u.accessRole as role'])
          .execute();
        expect(members.map((member) => member.userId).sort()).toEqual(created.map((admin) => admin.user.id).sort());
        expect(members.every((member) => member.role === 'owner')).toBe(true);
      } finally {
        await db.destroy();
      }
    });
  });
});
