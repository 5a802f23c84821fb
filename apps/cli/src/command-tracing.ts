import type { Command } from 'commander';
import { loadTracingConfig } from '@waymark/core/config/config';

/**
 * A command run as one trace (docs/operations.md, "Tracing") when OTEL_EXPORTER_OTLP_ENDPOINT is
 * set: a root span named for the command (`waymark journeys check`; never its arguments, which may
 * be addresses), exported before the process exits. Unset, the command just runs: the SDK is not loaded.
 */
export async function tracedCommand(command: Command, run: () => Promise<number>): Promise<number> {
  const config = loadTracingConfig();
  if (!config.tracing.enabled) return run();
  const [{ startTracing }, { inNewSpan }] = await Promise.all([import('@waymark/core/logging/tracing'), import('@waymark/core/logging/trace-context')]);
  const tracing = await startTracing(config, 'waymark-cli');
  try {
    return await inNewSpan(commandPath(command), {}, run);
  } finally {
    await tracing?.shutdown();
  }
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}
