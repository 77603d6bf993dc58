/**
 * Tracing as the gateway starts it: off unless an OTLP endpoint is configured, and then the
 * OpenTelemetry packages (API, SDK, exporters, conventions) are loaded by a dynamic import, so
 * a gateway without tracing neither loads nor keeps them (bench/gateway/startup.ts measures it).
 * Only types are imported statically from the modules that use them.
 */
import { type TelemetryConfig, tracesExport } from './config.ts';
import type { GatewayTracing } from './tracing.ts';

export type { GatewayTracing } from './tracing.ts';

/** The gateway's tracing, or undefined when it is off (no endpoint, disabled). */
export async function loadTracing(config: TelemetryConfig): Promise<GatewayTracing | undefined> {
  if (tracesExport(config) === undefined) return undefined;
  const { createTracing } = await import('./tracing.ts');
  return createTracing(config);
}
