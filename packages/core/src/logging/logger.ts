import { pino, type Logger } from 'pino';
import type { Config } from '../config/config';
import { activeTraceIds } from './trace-context';

/** LOG_LEVEL includes `http` (request lines), between info and debug. */
const customLevels = { http: 25 } as const;

export type AppLogger = Logger<'http'>;

export interface LoggerOptions {
  level: Config['logLevel'];
  name: string;
  format: Config['logFormat'];
  /** with tracing on: each line written inside a span carries its `trace_id` and `span_id` (docs/operations.md, "Tracing") */
  traceIds?: boolean;
}

export function createLogger(options: LoggerOptions): AppLogger {
  const pretty = options.format === 'pretty';
  return pino({
    name: options.name,
    level: options.level,
    customLevels,
    // off unless tracing is on: a line costs nothing more then
    ...(options.traceIds === true ? { mixin: () => activeTraceIds() ?? {} } : {}),
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.password', '*.key'], censor: '[redacted]' },
    ...(pretty
      ? {
          transport: {
            target: 'pino-pretty',
            options: { ignore: 'pid,hostname', translateTime: 'HH:MM:ss.l', customLevels: 'http:25', useOnlyCustomProps: false },
          },
        }
      : {}),
  });
}
