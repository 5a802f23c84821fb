import { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../../../test/otlp-receiver';
import { tracedCommand } from './command-tracing';

describe('a CLI command with tracing', () => {
  const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  let receiver: OtlpReceiver | undefined;
  afterEach(async () => {
    if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
    await receiver?.close();
  });
  const journeysCheck = () => new Command('waymark').command('journeys').command('check');

  // its own timeout: the first traced command loads the OpenTelemetry SDK, ~1 s alone and 6 s once in the full suite on two busy cores
  it('on: the command is one trace, a span named for the command (not its arguments), exported before it returns', async () => {
    receiver = await startOtlpReceiver();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    expect(await tracedCommand(journeysCheck(), async () => 3)).toBe(3);
    expect(receiver.spans.map((span) => [span.name, span.service, span.parentSpanId ?? ''])).toEqual([['waymark journeys check', 'waymark-cli', '']]);
  }, 30_000);

  it('off: the command just runs, and nothing is exported', async () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    receiver = await startOtlpReceiver();
    expect(await tracedCommand(journeysCheck(), async () => 0)).toBe(0);
    expect(receiver.requests).toBe(0);
  });
});
