export { ConfigError, type EnvMapping, loadConfig } from './config.ts';
export { type ErrorHandling, type FrameworkErrorKind, installErrorHandler } from './error-handler.ts';
export { AppError, defineErrors, type ErrorCatalogue, type ErrorDefinition, isAppError } from './errors.ts';
export { type LogConfig, loggerOptions, REDACTED_PATHS, redactUrl } from './logger.ts';
export { installMetrics } from './metrics.ts';
export type { OpenApiInfo } from './openapi.ts';
export { runMain } from './run-main.ts';
export { type App, createServer, type ServerOptions } from './server.ts';
export { type Closable, closeOnSignals } from './shutdown.ts';
