import type { LogLevel, LogMetadata, Logger } from '@temporalio/worker';
import type { AppLogger } from '@waymark/core/logging/logger';

const SEVERITY: Record<LogLevel, number> = { TRACE: 0, DEBUG: 1, INFO: 2, WARN: 3, ERROR: 4 };
const PINO_LEVEL = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const satisfies Record<LogLevel, string>;

/**
 * The Temporal SDK's own log (its worker's state, an activity or workflow task that failed, a lost
 * connection, its core's warnings) as lines of the service's log: the same format (LOG_FORMAT, so a
 * collector parses them like the rest), the same redaction, `component: 'temporal-sdk'`, and an
 * error under `err` so its stack is serialized. From `least` up: the SDK's INFO lines (each worker
 * state change) would drown the service log.
 */
export function sdkLogger(logger: AppLogger, least: LogLevel = 'WARN'): Logger {
  const sdk = logger.child({ component: 'temporal-sdk' });
  const log = (level: LogLevel, message: string, meta: LogMetadata = {}) => {
    if (SEVERITY[level] < SEVERITY[least]) return;
    const { error, ...fields } = meta;
    sdk[PINO_LEVEL[level]](error === undefined ? fields : { ...fields, err: error }, message);
  };
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}
