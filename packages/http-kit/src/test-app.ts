import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { defineErrors } from './errors.ts';
import type { SheddingOptions } from './load-shedding.ts';
import type { RequestLogFields } from './logger.ts';
import type { DrainBounds } from './oversized-body.ts';
import type { HttpMetricsOptions } from './metrics.ts';
import { createServer } from './server.ts';

/** A small service built on the kit, for the kit's own tests. */
export const testErrors = defineErrors({
  bad_input: { status: 400, type: 'invalid_request_error', message: (p: { reason: string }) => p.reason },
  not_here: { status: 404, type: 'not_found', message: () => 'No such route.' },
  too_big: { status: 413, type: 'invalid_request_error', message: () => 'Too big.' },
  teapot: { status: 418, type: 'teapot', message: (p: { who: string }) => `${p.who} is a teapot` },
  internal: { status: 500, type: 'api_error', message: () => 'Internal server error.' },
});

export async function buildTestApp(
  options: {
    ready?: () => Promise<void>;
    bodyLimitBytes?: number;
    requestLogFields?: RequestLogFields;
    shedding?: SheddingOptions;
    oversizedBodyDrain?: DrainBounds;
    httpMetrics?: HttpMetricsOptions;
  } = {},
): Promise<{ app: FastifyInstance; logs: () => string }> {
  const stream = new PassThrough();
  let logText = '';
  stream.on('data', (chunk: Buffer) => {
    logText += chunk.toString();
  });
  const app = await createServer({
    service: 'kit_test',
    log: { level: 'info' },
    bodyLimitBytes: options.bodyLimitBytes ?? 1024,
    defaultMetrics: false,
    logStream: stream,
    ready: options.ready ?? (async () => {}),
    ...(options.requestLogFields ? { requestLogFields: options.requestLogFields } : {}),
    ...(options.shedding ? { shedding: options.shedding } : {}),
    ...(options.oversizedBodyDrain ? { oversizedBodyDrain: options.oversizedBodyDrain } : {}),
    ...(options.httpMetrics ? { httpMetrics: options.httpMetrics } : {}),
    openapi: { title: 'Kit test', version: '0.0.0', description: 'test' },
    errors: {
      fromFramework: (kind, message) => {
        if (kind === 'not_found') return testErrors.create('not_here', {});
        if (kind === 'body_too_large') return testErrors.create('too_big', {});
        if (kind === 'internal') return testErrors.create('internal', {});
        return testErrors.create('bad_input', { reason: message });
      },
      render: (error, _request, reply) => reply.send({ error: { code: error.code, message: error.message } }),
    },
  });
  app.post(
    '/echo',
    {
      schema: {
        body: Type.Object({ name: Type.String({ minLength: 1 }) }),
        response: { 200: Type.Object({ name: Type.String() }) },
      },
    },
    async (request) => ({ name: (request.body as { name: string }).name }),
  );
  app.get('/teapot', async () => {
    throw testErrors.create('teapot', { who: 'this server' }, { headers: { 'retry-after': '3' } });
  });
  app.get('/crash', async () => {
    throw new Error('database password is hunter2 at /srv/app/secret.ts:12');
  });
  app.get('/slow', async (request) => {
    const ms = Number((request.query as { ms?: string }).ms ?? 300);
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { done: true };
  });
  return { app, logs: () => logText };
}
