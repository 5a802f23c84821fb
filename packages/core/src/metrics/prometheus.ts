import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Db } from '../db/database';
import { eventEffectStats } from '../events/event-effects';
import type { SendRateGovernor, SendRateSnapshot } from '../send-rate/send-rate-governor';

interface Sample {
  name: string;
  help: string;
  type: 'gauge' | 'counter';
  value: number;
  labels?: Record<string, string>;
}

function render(samples: Sample[]): string {
  const lines: string[] = [];
  const described = new Set<string>();
  for (const sample of samples) {
    if (!described.has(sample.name)) {
      lines.push(`# HELP ${sample.name} ${sample.help}`, `# TYPE ${sample.name} ${sample.type}`);
      described.add(sample.name);
    }
    const labels =
      sample.labels === undefined
        ? ''
        : `{${Object.entries(sample.labels)
            .map(([key, value]) => `${key}="${value.replace(/["\\\n]/g, '\\$&')}"`)
            .join(',')}}`;
    lines.push(`${sample.name}${labels} ${Number.isFinite(sample.value) ? sample.value : 0}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The send-rate budget (docs/email.md, "Send rate"): installation-wide while Redis is up, this process alone in fallback. */
function sendRateSamples(snapshot: SendRateSnapshot): Sample[] {
  return [
    {
      name: 'waymark_send_rate_limit_per_second',
      help: 'The send budget of the installation per second (SES_MAX_SEND_RATE or SES MaxSendRate); 0 when unlimited.',
      type: 'gauge',
      value: snapshot.limitPerSecond ?? 0,
      labels: { source: snapshot.source },
    },
    {
      name: 'waymark_send_rate_current_per_second',
      help: 'Send tokens handed out per second over the last 10 s, every process (this one alone in fallback).',
      type: 'gauge',
      value: snapshot.currentPerSecond ?? 0,
    },
    {
      name: 'waymark_send_rate_waiting',
      help: 'Sends waiting for a token of the send budget (in a worker or deferred to their slot).',
      type: 'gauge',
      value: snapshot.waiting,
    },
    {
      name: 'waymark_send_rate_fallback',
      help: '1 while this process cannot reach Redis and sends at its share of the budget.',
      type: 'gauge',
      value: snapshot.fallback ? 1 : 0,
    },
    {
      name: 'waymark_send_rate_processes',
      help: 'Processes sharing the send budget (seen in Redis in the last 15 s).',
      type: 'gauge',
      value: snapshot.processes,
    },
    {
      name: 'waymark_send_rate_throttled_total',
      help: 'SES Throttling answers (retried, never counted as a failed attempt).',
      type: 'counter',
      value: snapshot.throttled,
    },
  ];
}

/** What a tracking hit was: a pixel fetch or a link click. */
export type TrackingHitKind = 'open' | 'click';

export interface ProcessMetrics {
  /** Prometheus text exposition format 0.0.4 */
  render(): Promise<string>;
  /** A tracking hit answered but not recorded: its address was past TRACKING_RATE_LIMIT_MAX. */
  countTrackingDropped(kind: TrackingHitKind): void;
  close(): void;
}

/**
 * Process metrics of this api instance (memory, CPU, event-loop delay, uptime) plus a few
 * queue gauges from the database. Per instance: scrape every instance, not the load balancer.
 */
function ageSeconds(since: Date | null): number {
  return since === null ? 0 : Math.max(0, Math.round((Date.now() - since.getTime()) / 1000));
}

export function createProcessMetrics(options: { db: Db; version: string; sendRate?: SendRateGovernor }): ProcessMetrics {
  const loopDelay = monitorEventLoopDelay({ resolution: 20 });
  loopDelay.enable();
  const trackingDropped: Record<TrackingHitKind, number> = { open: 0, click: 0 };
  return {
    async render() {
      const memory = process.memoryUsage();
      const cpu = process.cpuUsage();
      const [dlq, imports, effects, sendRate] = await Promise.all([
        options.db
          .selectFrom('dlqEntries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', '=', 'pending')
          .executeTakeFirstOrThrow(),
        options.db
          .selectFrom('importJobs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', 'in', ['pending', 'processing'])
          .executeTakeFirstOrThrow(),
        eventEffectStats(options.db),
        options.sendRate?.snapshot(),
      ]);
      const samples: Sample[] = [
        { name: 'waymark_info', help: 'Build information.', type: 'gauge', value: 1, labels: { version: options.version } },
        { name: 'process_resident_memory_bytes', help: 'Resident memory size in bytes.', type: 'gauge', value: memory.rss },
        { name: 'nodejs_heap_size_used_bytes', help: 'V8 heap used in bytes.', type: 'gauge', value: memory.heapUsed },
        { name: 'nodejs_heap_size_total_bytes', help: 'V8 heap size in bytes.', type: 'gauge', value: memory.heapTotal },
        { name: 'nodejs_external_memory_bytes', help: 'Memory of C++ objects bound to JS objects.', type: 'gauge', value: memory.external },
        { name: 'process_cpu_user_seconds_total', help: 'User CPU time spent in seconds.', type: 'counter', value: cpu.user / 1e6 },
        { name: 'process_cpu_system_seconds_total', help: 'System CPU time spent in seconds.', type: 'counter', value: cpu.system / 1e6 },
        { name: 'process_uptime_seconds', help: 'Seconds since the process started.', type: 'gauge', value: Math.round(process.uptime()) },
        {
          name: 'nodejs_eventloop_delay_p99_seconds',
          help: 'Event-loop delay, 99th percentile since start.',
          type: 'gauge',
          value: loopDelay.percentile(99) / 1e9,
        },
        { name: 'waymark_dlq_pending_entries', help: 'Dead-letter entries waiting for retry or discard.', type: 'gauge', value: dlq.n },
        { name: 'waymark_import_jobs_active', help: 'Contact import jobs pending or processing.', type: 'gauge', value: imports.n },
        ...(['open', 'click'] as const).map((kind): Sample => ({
          name: 'waymark_tracking_dropped_total',
          help: 'Tracking hits answered but not recorded: their address was past TRACKING_RATE_LIMIT_MAX.',
          type: 'counter',
          value: trackingDropped[kind],
          labels: { kind },
        })),
        {
          name: 'waymark_event_effects_pending',
          help: 'Journey effects of stored events (starts, signals, exits) kept in the outbox and not yet carried out.',
          type: 'gauge',
          value: effects.pending,
        },
        {
          name: 'waymark_event_effects_pending_oldest_seconds',
          help: 'Age of the oldest journey effect kept in the outbox (0 when none is).',
          type: 'gauge',
          value: ageSeconds(effects.oldestAt),
        },
        {
          name: 'waymark_journey_starts_pending',
          help: 'Journey starts among the effects kept in the outbox.',
          type: 'gauge',
          value: effects.starts.pending,
        },
        {
          name: 'waymark_journey_starts_pending_oldest_seconds',
          help: 'Age of the oldest journey start kept in the outbox (0 when none is).',
          type: 'gauge',
          value: ageSeconds(effects.starts.oldestAt),
        },
        ...(sendRate === undefined ? [] : sendRateSamples(sendRate)),
      ];
      return render(samples);
    },
    countTrackingDropped(kind) {
      trackingDropped[kind] += 1;
    },
    close() {
      loopDelay.disable();
    },
  };
}
