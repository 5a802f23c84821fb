// Preloaded into the SES emulator (`node --import` this file, then the emulator's cli.js; scripts/stack.sh
// and bench/lib/ses-emulator-process.ts): message ids that never repeat. aws-ses-v2-local draws each
// id from 900 million random numbers, so among the ten thousand messages of one crash test two
// sometimes share an id, which SES never does; the send ledger's unique provider message id then
// parks the second send in the DLQ as "delivery unknown".
// The emulator (CommonJS) reads `getMessageId` from its util module's exports at each call, so
// replacing that export in the shared module cache is enough. The util module sits beside the
// script being run (its bin is a link to dist/cli.js), wherever that copy of the emulator lives.
import { randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';

const dist = path.dirname(realpathSync(process.argv[1] ?? ''));
createRequire(import.meta.url)(path.join(dist, 'util.js')).getMessageId = () => `ses-${randomUUID()}`;
