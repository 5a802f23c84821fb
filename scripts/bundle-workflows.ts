/**
 * npm run build:workflows [-- out-file]: the workflow bundle a worker loads instead of bundling at
 * start-up (TEMPORAL_WORKFLOW_BUNDLE; docs/scaling.md). Default output: dist/workflow-bundle.js.
 */
import path from 'node:path';
import { writeWorkflowBundle } from '../apps/worker/src/workflow-bundle';

const outFile = path.resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
await writeWorkflowBundle(outFile);
console.log(`workflow bundle written to ${outFile}; start workers with TEMPORAL_WORKFLOW_BUNDLE=${outFile}`);
