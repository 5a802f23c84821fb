import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { journeyWorkflowBundle, stopJourneyTestServer, testJourneyOnTemporal } from '@waymark/journey-testing';
import { afterAll, expect, it } from 'vitest';
import trialConversion from './trial-conversion';

afterAll(stopJourneyTestServer);

const journeysDir = path.dirname(fileURLToPath(import.meta.url));
const historiesDir = path.join(journeysDir, 'histories');
const exportedDir = path.join(journeysDir, '__histories__');

function jsonFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .map((file) => path.join(dir, file));
}

it('replays recorded journey histories with the current code (guards determinism of journey changes)', async () => {
  // UPDATE_JOURNEY_HISTORIES=trial-conversion-<change>.json records the current code's history
  // beside the older ones (each a shape of run that may still be asleep in a deployment)
  const record = process.env.UPDATE_JOURNEY_HISTORIES;
  if (record !== undefined && record !== '') {
    const t = await testJourneyOnTemporal(trialConversion, { trigger: { properties: { plan: 'pro' } } });
    await t.advance('7 days');
    const { History } = temporal.api.history.v1;
    // toObject/fromObject of the proto package's own copy: historyToJSON trips over the second protobufjs copy too
    writeFileSync(
      path.join(historiesDir, path.basename(record)),
      JSON.stringify(History.toObject(History.fromObject(await t.history()), { enums: String, longs: String, bytes: String })),
    );
  }
  // recorded shapes, then the live runs exported from an installation (`waymark journeys export-histories`)
  const files = [
    ...jsonFiles(historiesDir),
    ...(existsSync(exportedDir) ? readdirSync(exportedDir).flatMap((id) => jsonFiles(path.join(exportedDir, id))) : []),
  ];
  expect(files.length).toBeGreaterThan(0);
  // the worker's bundle, from the kit's cache unless a source changed since it was built
  const workflowBundle = await journeyWorkflowBundle();
  for (const file of files) {
    // fromObject rather than historyFromJSON: the latter trips over a second protobufjs copy in node_modules
    const history = temporal.api.history.v1.History.fromObject(JSON.parse(readFileSync(file, 'utf8')));
    await Worker.runReplayHistory({ workflowBundle, replayName: path.relative(journeysDir, file) }, history);
  }
});
