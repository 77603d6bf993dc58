export { ConfigError, type EnvMapping, loadConfig } from './config.ts';
export { expectation } from './config-problems.ts';
export { findProjectRoot, fromProjectRoot, PROJECT_ROOT } from './project-root.ts';
export { type ErrorHandling, type FrameworkErrorKind, installErrorHandler } from './error-handler.ts';
export { AppError, defineErrors, type ErrorCatalogue, type ErrorDefinition, isAppError } from './errors.ts';
export {
  type LogConfig,
  LOG_FORMAT,
  type LogDestination,
  logDestination,
  loggerOptions,
  noteErrorCode,
  REDACTED_PATHS,
  type RequestLogFields,
  redactUrl,
} from './logger.ts';
export { type HttpMetricsOptions, installMetrics, registryOf } from './metrics.ts';
export type { OpenApiInfo } from './openapi.ts';
export { listenQuietly, runMain } from './run-main.ts';
export { type App, createServer, type ServerOptions } from './server.ts';
export { type Closable, closeOnSignals } from './shutdown.ts';
export { dictionary, findReservedKey, reservedKeyMessage, reservedSegment } from './safe-keys.ts';
export { sheddingConfigSchema, sheddingEnv, type SheddingOptions } from './load-shedding.ts';
export { Html, html, trustedMarkup } from './html.ts';
export {
  FAVICON_PATH,
  installPageAssets,
  landingRoutes,
  type LandingOptions,
  PAGE_CSP,
  PAGE_STYLESHEET_PATH,
  publicPage,
  sendPage,
  wantsHtml,
} from './landing.ts';
