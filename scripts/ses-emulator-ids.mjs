// Preloaded into the SES emulator (scripts/stack.sh, up_ses): message ids that never repeat.
// aws-ses-v2-local draws each id from 900 million random numbers, so among the ten thousand
// messages of one crash test two sometimes share an id, which SES never does; the send ledger's
// unique provider message id then parks the second send in the DLQ as "delivery unknown".
// The emulator (CommonJS) reads `getMessageId` from its util module's exports at each call, so
// replacing that export in the shared module cache is enough. SES_EMULATOR_DIST: its dist folder.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';

const require = createRequire(import.meta.url);
require(path.join(process.env.SES_EMULATOR_DIST ?? '', 'util.js')).getMessageId = () => `ses-${randomUUID()}`;
