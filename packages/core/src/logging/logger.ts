import { pino, type Logger } from 'pino';
import type { Config } from '../config/config';

/** LOG_LEVEL includes `http` (request lines), between info and debug. */
const customLevels = { http: 25 } as const;

export type AppLogger = Logger<'http'>;

export function createLogger(options: { level: Config['logLevel']; name: string; format: Config['logFormat'] }): AppLogger {
  const pretty = options.format === 'pretty';
  return pino({
    name: options.name,
    level: options.level,
    customLevels,
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
