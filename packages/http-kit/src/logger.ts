import type { LoggerOptions } from 'pino';

/** Paths pino removes from every log line: credentials must never reach the logs. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["api-key"]',
  'res.headers["set-cookie"]',
  'req.query.token',
  'req.body.token',
  'req.body.password',
  'token',
  'password',
  '*.token',
  '*.password',
  '*.authorization',
] as const;

export interface LogConfig {
  readonly level: string;
  readonly pretty?: boolean;
}

export function loggerOptions(config: LogConfig, service: string): LoggerOptions {
  return {
    level: config.level,
    base: { service },
    redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
    serializers: {
      // The default request serializer logs the raw URL, whose query string can carry a token.
      req(request: { method?: string; url?: string; id?: string; ip?: string }) {
        return { method: request.method, url: redactUrl(request.url ?? ''), id: request.id, ip: request.ip };
      },
    },
  };
}

const SECRET_QUERY = /([?&](?:token|access_token|api_key|key|password)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}
