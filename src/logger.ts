import pino, { Logger } from 'pino';

export function createLogger(level: string, name = 'model-orchestration'): Logger {
  return pino({ name, level, redact: { paths: ['req.headers.authorization', '*.token'], remove: true } });
}
