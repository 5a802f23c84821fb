/**
 * What `@temporalio/workflow` is for a journey module the check loads into this process
 * (load-journeys.ts points its imports here): the SDK, with `patched()` answered by the check's
 * simulation instead of a workflow context this process does not have.
 */
export * from '@temporalio/workflow';
export { deprecatePatch, patched } from './patch-decisions';
