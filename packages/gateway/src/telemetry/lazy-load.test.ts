/**
 * Tracing off costs no OpenTelemetry code: a gateway built without an OTLP endpoint loads none
 * of the @opentelemetry packages tracing uses; with one, it does. Checked in a fresh process, where a module
 * resolution hook sees every module loaded.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const APP = new URL('../app.ts', import.meta.url).href;
const CONFIG = new URL('../config.ts', import.meta.url).href;

/** Builds and closes the gateway in a child process; the @opentelemetry modules it loaded. */
function openTelemetryLoaded(env: Record<string, string>): string[] {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-lazy-otel-'));
  const script = `
    import { registerHooks } from 'node:module';
    const loaded = new Set();
    registerHooks({
      resolve(specifier, context, next) {
        const resolved = next(specifier, context);
        const found = /node_modules\\/(@opentelemetry\\/[^/]+)/.exec(resolved.url);
        if (found) loaded.add(found[1]);
        return resolved;
      },
    });
    const { buildApp } = await import(${JSON.stringify(APP)});
    const { loadGatewayConfig } = await import(${JSON.stringify(CONFIG)});
    const config = loadGatewayConfig(${JSON.stringify(env)}, {
      overrides: { dataDir: ${JSON.stringify(dataDir)}, logLevel: 'silent', upstream: { simulator: { enabled: false } } },
    });
    const app = await buildApp(config, { defaultMetrics: false });
    await app.close();
    console.log(JSON.stringify([...loaded].sort()));
  `;
  try {
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(child.status, 0, child.stderr);
    return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '[]') as string[];
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test('without an OTLP endpoint no OpenTelemetry SDK package is loaded; with one they are', () => {
  // prom-client loads @opentelemetry/api itself (exemplars), tracing or not: the gateway's own
  // packages (SDK, exporters, conventions, resources) are what stays out.
  const untraced = openTelemetryLoaded({}).filter((name) => name !== '@opentelemetry/api');
  assert.deepEqual(untraced, []);
  const loaded = openTelemetryLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
  for (const name of [
    '@opentelemetry/api',
    '@opentelemetry/sdk-trace',
    '@opentelemetry/exporter-trace-otlp-proto',
  ])
    assert.ok(loaded.includes(name), `${name} in ${loaded.join(', ')}`);
});
