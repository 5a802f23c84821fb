import type { SignatureScheme, SignatureVerifier, Source } from '@waymark/sources';

/** How a mounted source authenticates, with its secrets read and decoded once at start-up. */
export type MountedAuth =
  /** `open`: served with no secret, as its `*_WEBHOOK_OPEN=true` says (development only) */
  | { type: 'match'; header: string | undefined; secrets: readonly string[]; open: boolean }
  | { type: 'signature'; scheme: SignatureScheme; verifiers: readonly SignatureVerifier[]; fallbackHeader: string | undefined; secrets: readonly string[] };

export interface MountedSource {
  source: Source;
  auth: MountedAuth;
}

export interface SourceRegistry {
  find(id: string): MountedSource | undefined;
  list(): readonly MountedSource[];
}

/** Ids a source may not take: the SES webhook lives beside them under /v1/webhooks/. */
const RESERVED_IDS = new Set(['email-provider']);

/** A variable may hold several secrets separated by whitespace, so a rotation can overlap. */
export function splitSecrets(value: string | undefined): string[] {
  return value === undefined ? [] : value.split(/\s+/).filter((secret) => secret !== '');
}

function mountAuth(source: Source, secrets: string[], openVariables: readonly string[]): MountedAuth {
  const { auth } = source;
  if (auth.type === 'match')
    return { type: 'match', header: auth.header?.toLowerCase(), secrets, open: secrets.length === 0 && openVariables.includes(auth.secret) };
  const verifiers = secrets.map((secret, index) => {
    try {
      return auth.scheme.prepare(secret);
    } catch {
      // never echo the secret: name the variable and the position only
      throw new Error(`webhook source "${source.id}": secret ${index + 1} in ${auth.secret} is not a valid ${auth.scheme.name} secret`);
    }
  });
  return { type: 'signature', scheme: auth.scheme, verifiers, fallbackHeader: auth.fallbackHeader?.toLowerCase(), secrets };
}

/**
 * The sources this process serves: the built-in presets (a signature preset only when its
 * secret variable is set) and this deployment's own (journeys/sources). A duplicate id or an
 * undecodable secret stops start-up, as a bad journey definition does.
 */
export function createSourceRegistry(
  sources: readonly Source[],
  secretsByVariable: Readonly<Record<string, string>>,
  openVariables: readonly string[] = [],
): SourceRegistry {
  const mounted = new Map<string, MountedSource>();
  for (const source of sources) {
    if (RESERVED_IDS.has(source.id)) throw new Error(`webhook source id "${source.id}" is reserved`);
    if (mounted.has(source.id)) throw new Error(`webhook source id "${source.id}" is defined twice`);
    const secrets = splitSecrets(secretsByVariable[source.auth.secret]);
    if (source.mountWhenSecretSet && secrets.length === 0) continue;
    mounted.set(source.id, { source, auth: mountAuth(source, secrets, openVariables) });
  }
  const list = [...mounted.values()];
  return { find: (id) => mounted.get(id), list: () => list };
}
