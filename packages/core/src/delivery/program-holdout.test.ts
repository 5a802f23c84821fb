import { describe, expect, it } from 'vitest';
import { defineDeliveryPolicy, holdoutArm, programHoldoutArm } from '@waymark/journey';
import { programHoldout, programHoldoutOfEntry, programHoldoutPhrase } from './program-holdout';

const policy = defineDeliveryPolicy({ holdout: { percent: 50, categories: ['newsletter', 'receipts'] } });
const categories = { required: (key: string) => key === 'receipts' };
const heldOutUser = Array.from({ length: 100 }, (_, index) => `user-${index}`).find((userId) => programHoldoutArm(policy, 'newsletter', userId)!.holdout)!;

describe('programHoldout', () => {
  it('holds a held-out person out of a category the policy names', () => {
    expect(programHoldout(policy, categories, 'newsletter', heldOutUser)).toMatchObject({ holdout: true, threshold: 500 });
  });

  it('never holds out a required category, even one the policy names', () => {
    expect(programHoldout(policy, categories, 'receipts', heldOutUser)).toBeUndefined();
  });

  it('lets a category the policy does not name through', () => {
    expect(programHoldout(policy, categories, 'journey', heldOutUser)).toBeUndefined();
  });

  it('uses the journey holdout hash with its own salt, so the program arm is not a journey arm', () => {
    const program = programHoldoutArm(policy, 'newsletter', heldOutUser)!;
    const journey = holdoutArm({ id: 'some-journey', holdout: { percent: 50 } }, heldOutUser)!;
    expect(program.bucket).not.toBe(journey.bucket);
    expect(holdoutArm({ id: 'ignored', holdout: { percent: 50, salt: 'waymark:program-holdout' } }, heldOutUser)).toEqual(program);
  });

  it("records an enrollment's program arm for a held category, both arms, and none for a required or unnamed one", () => {
    const treatedUser = Array.from({ length: 100 }, (_, index) => `user-${index}`).find((userId) => !programHoldoutArm(policy, 'newsletter', userId)!.holdout)!;
    expect(programHoldoutOfEntry(policy, categories, 'newsletter', heldOutUser)).toBe(true);
    expect(programHoldoutOfEntry(policy, categories, 'newsletter', treatedUser)).toBe(false);
    expect(programHoldoutOfEntry(policy, categories, 'receipts', heldOutUser)).toBeUndefined();
    expect(programHoldoutOfEntry(policy, categories, 'journey', heldOutUser)).toBeUndefined();
  });

  it('words the arm for explain', () => {
    expect(programHoldoutPhrase({ bucket: 123, threshold: 50 })).toBe('held out of all lifecycle email (program holdout, bucket 123 of 1000 is under 50)');
  });
});
