import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { redactSecretString, secretValuesUnder } from '@waymark/email/secret-props';
import { liveRunsOtherThan } from '@waymark/core/journeys/running-versions';
import { jsonPlainValue } from '@waymark/temporal/payload-codec';
import { fetchOpenHistory, type JourneysCheckDeps } from './fetch-history';
import { isHistoryNotFound } from './history-not-found';

/**
 * Keys whose string values are personal data in a journey run's payloads (its input, mirror
 * results, signals, search attributes): replaced by stable placeholders. Only payloads are
 * rewritten (the history's own fields, such as the workflow type, stay). Other values, such as a
 * trigger's `plan` or an event's `name`, stay as they are: the journey's code may branch on them,
 * and a replay must take the branch the run took.
 */
const PERSONAL_KEYS = new Set(['userId', 'userEmail', 'email', 'firstName', 'lastName', 'phone', 'WaymarkUserId']);

/**
 * A failure's text (its message and stack, as the history's own fields or, sealed since, as its
 * encoded attributes' payload): free text that may quote a person's values, as a provider's
 * refusal quotes the address. Every personal value the history holds elsewhere is replaced inside
 * it; no run's code branches on these strings, so a replay is unchanged.
 */
const FAILURE_TEXT_KEYS = new Set(['message', 'stackTrace', 'stack_trace']);

/**
 * `waymark journeys export-histories`: writes the histories of up to `limit` live runs of a journey
 * to `<outDir>/<n>.json` (oldest runs first), their payloads opened (ENCRYPTION_KEYS), the
 * personal data replaced and the value of every prop a template declares secret (`secretKeys`)
 * replaced by the redaction placeholder, so `journeys/replay.wf.test.ts` replays each change
 * against real production runs in CI without the keys and without a live sign-in link. A live run
 * whose history Temporal no longer has (retention, another cluster) is skipped and named in
 * `skipped` (workflow ids); the next run takes its place.
 */
export async function exportHistories(
  deps: JourneysCheckDeps,
  options: { journeyId: string; limit: number; outDir: string; secretKeys: ReadonlySet<string> },
): Promise<{ files: string[]; skipped: string[] }> {
  const runs = await liveRunsOtherThan(deps.db, options.journeyId, undefined);
  mkdirSync(options.outDir, { recursive: true });
  const files: string[] = [];
  const skipped: string[] = [];
  for (const run of runs) {
    if (files.length >= options.limit) break;
    const history = await fetchOpenHistory(deps, run).catch((error: unknown) => {
      if (!isHistoryNotFound(error)) throw error;
      skipped.push(run.workflowId);
      return undefined;
    });
    if (history === undefined) continue;
    // the client hands back protobufjs messages: toJSON() is toObject with enums, longs and bytes as
    // strings, the form the replay test reads back with History.fromObject (journeys/replay.wf.test.ts)
    const plain = (history as typeof history & { toJSON(): unknown }).toJSON();
    const file = path.join(options.outDir, `${String(files.length + 1).padStart(3, '0')}.json`);
    writeFileSync(file, `${JSON.stringify(scrubHistory(plain, options.secretKeys))}\n`);
    files.push(file);
  }
  return { files, skipped };
}

/** The same value gets the same placeholder within one history (a user id in the input and in a signal). */
class Placeholders {
  private readonly seen = new Map<string, string>();
  /** the values the history holds under a secret prop's key: wherever else they appear (the event property a journey took the link from), they are redacted too */
  readonly secretValues = new Set<string>();
  constructor(readonly secretKeys: ReadonlySet<string>) {}
  for(key: string, value: string): string {
    const known = this.seen.get(value);
    if (known !== undefined) return known;
    const n = this.seen.size + 1;
    const placeholder = key === 'userEmail' || key === 'email' ? `person-${n}@example.invalid` : `person-${n}`;
    this.seen.set(value, placeholder);
    return placeholder;
  }
  /** `text` with every personal value seen so far replaced, the longest first (an address before the id inside it) */
  inText(text: string): string {
    let kept = text;
    for (const [value, placeholder] of [...this.seen].sort(([a], [b]) => b.length - a.length)) kept = kept.split(value).join(placeholder);
    return kept;
  }
}

/** A history (as JSON) with its personal values and secret props' values replaced in every JSON payload. */
export function scrubHistory(history: unknown, secretKeys: ReadonlySet<string>): unknown {
  const placeholders = new Placeholders(secretKeys);
  eachJsonPayload(history, (decoded) => collectValues(decoded, placeholders));
  return scrub(history, placeholders);
}

function eachJsonPayload(value: unknown, visit: (decoded: unknown) => void): void {
  if (typeof value !== 'object' || value === null) return;
  const json = Array.isArray(value) ? undefined : jsonPlainValue(value);
  if (json !== undefined) return visit(json.value);
  for (const item of Object.values(value)) eachJsonPayload(item, visit);
}

/** First pass: the secret props' values, and the personal values (their placeholders in the order met), so that a failure's text met before them is scrubbed too. */
function collectValues(value: unknown, placeholders: Placeholders): void {
  secretValuesUnder(value, placeholders.secretKeys, placeholders.secretValues);
  collectPersonal(value, placeholders);
}

function collectPersonal(value: unknown, placeholders: Placeholders, key = ''): void {
  if (typeof value === 'string') {
    if (PERSONAL_KEYS.has(key) && value !== '') placeholders.for(key, value);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [name, item] of Object.entries(value)) collectPersonal(item, placeholders, Array.isArray(value) ? key : name);
}

/** Walks the history; each JSON payload met is decoded, its personal values replaced, and encoded again. */
function scrub(value: unknown, placeholders: Placeholders, key = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => scrub(item, placeholders, key));
  if (typeof value === 'string' && FAILURE_TEXT_KEYS.has(key)) return placeholders.inText(value);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  const json = jsonPlainValue(record);
  if (json !== undefined) return { ...record, data: Buffer.from(JSON.stringify(replacePersonal(json.value, placeholders, key))).toString('base64') };
  return Object.fromEntries(Object.entries(record).map(([name, item]) => [name, scrub(item, placeholders, name)]));
}

function replacePersonal(value: unknown, placeholders: Placeholders, key: string): unknown {
  if (typeof value === 'string') {
    // a secret prop's value is redacted before anything else (redactSecretString), even under a personal key
    if (PERSONAL_KEYS.has(key) && value !== '' && !placeholders.secretKeys.has(key)) return placeholders.for(key, value);
    return redactSecretString(FAILURE_TEXT_KEYS.has(key) ? placeholders.inText(value) : value, key, placeholders.secretKeys, placeholders.secretValues);
  }
  if (Array.isArray(value)) return value.map((item) => replacePersonal(item, placeholders, key));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, replacePersonal(item, placeholders, name)]));
}
