import type { Client } from '@temporalio/client';
import type { EncryptionKey } from '@waymark/core/config/encryption-keys';
import type { Db } from '@waymark/core/db/database';
import { openHistory } from '@waymark/temporal/payload-codec';

/** What the journeys check and the history export read: the database's live runs, and their histories from Temporal. */
export interface JourneysCheckDeps {
  db: Db;
  client: Client;
  /** ENCRYPTION_KEYS: the histories' payloads are sealed under them (docs/security.md) */
  encryptionKeys: readonly EncryptionKey[] | undefined;
}

/** A run's history with its payloads opened: what the replayer, the divergence finder and the export read. */
export async function fetchOpenHistory(deps: Pick<JourneysCheckDeps, 'client' | 'encryptionKeys'>, run: { workflowId: string; runId: string }) {
  const history = await deps.client.workflow.getHandle(run.workflowId, run.runId === '' ? undefined : run.runId).fetchHistory();
  return openHistory(history, deps.encryptionKeys);
}
