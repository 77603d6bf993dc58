/**
 * The gateway's floor inside its own stack: the kit's server (http-kit createServer, with the
 * gateway's settings: request log line at the production level, metrics, load shedding, error
 * handler) and one chat route that parses the body, forwards it with undici, parses the answer
 * once and sends it serialised once. No auth, routing, budget or adapter: what the gateway adds
 * above this is its own logic; what this adds above the bare proxy is the kit and Fastify.
 */
import { Writable } from 'node:stream';
import { createServer } from '@app/http-kit';
import { loadGatewayConfig } from '@app/gateway/config.ts';
import { renderGatewayError } from '@app/gateway/error-format.ts';
import { gatewayErrorFromFramework } from '@app/gateway/errors.ts';
import { Pool } from 'undici';

const discard = new Writable({
  write(_chunk, _encoding, done) {
    done();
  },
});

export async function startKitProxy(
  upstreamBaseUrl: string,
  logLevel: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const config = loadGatewayConfig({}, { overrides: { logLevel } });
  const upstream = new URL(upstreamBaseUrl);
  const pool = new Pool(upstream.origin, { connections: 256 });
  const app = await createServer({
    service: 'kitproxy',
    log: { level: config.logLevel, format: config.logFormat },
    bodyLimitBytes: config.bodyLimitBytes,
    shedding: config.shedding,
    logStream: discard,
    ready: async () => {},
    openapi: { title: 'kit proxy', version: '1.0.0', description: 'benchmark floor' },
    errors: {
      fromFramework: (kind, message, request) =>
        gatewayErrorFromFramework(kind, message, request.method, request.url),
      render: renderGatewayError,
    },
  });
  app.post('/v1/chat/completions', async (request) => {
    const answer = await pool.request({
      method: 'POST',
      path: `${upstream.pathname}/chat/completions`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request.body),
    });
    return (await answer.body.json()) as object;
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url: `${url}/v1`,
    close: async () => {
      await app.close();
      await pool.close();
    },
  };
}
