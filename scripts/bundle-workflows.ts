/**
 * npm run build:workflows [-- [--tracing] out-file]: the workflow bundle a worker loads instead of
 * bundling at start-up (TEMPORAL_WORKFLOW_BUNDLE; docs/scaling.md). Default output:
 * dist/workflow-bundle.js. `--tracing` bundles Temporal's workflow interceptors in, for workers with
 * tracing on (docs/operations.md, "Tracing").
 */
import path from 'node:path';
import { writeWorkflowBundle } from '../apps/worker/src/workflow-bundle';

const args = process.argv.slice(2);
const tracing = args.includes('--tracing');
const outFile = path.resolve(args.find((arg) => arg !== '--tracing') ?? 'dist/workflow-bundle.js');
await writeWorkflowBundle(outFile, { tracing });
console.log(`workflow bundle written to ${outFile}; start workers with TEMPORAL_WORKFLOW_BUNDLE=${outFile}`);
