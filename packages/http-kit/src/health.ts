import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';

const HealthBody = Type.Object({ status: Type.String() });

/**
 * `/healthz` says the process is alive; `/readyz` runs the service's readiness check (database
 * reachable) and answers 503 while it fails, so a load balancer stops sending traffic.
 */
export function installHealth(app: FastifyInstance, ready: () => Promise<void>): void {
  app.get(
    '/healthz',
    { schema: { tags: ['operations'], summary: 'Liveness', response: { 200: HealthBody } } },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Readiness: the database is reachable',
        response: { 200: HealthBody, 503: HealthBody },
      },
    },
    async (request, reply) => {
      try {
        await ready();
        return { status: 'ready' };
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        return reply.code(503).send({ status: 'unavailable' });
      }
    },
  );
}
