import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export interface OpenApiInfo {
  readonly title: string;
  readonly version: string;
  readonly description: string;
  readonly tags?: ReadonlyArray<{ name: string; description: string }>;
  readonly securitySchemes?: Record<string, Record<string, unknown>>;
  readonly security?: ReadonlyArray<Record<string, string[]>>;
}

/**
 * OpenAPI 3.1 generated from the route schemas, served at /openapi.json, and Swagger UI at
 * /docs from assets bundled in @fastify/swagger-ui (served by the service itself: no CDN, so
 * the docs work offline). Must be registered before the routes it documents.
 */
export async function installOpenApi(app: FastifyInstance, info: OpenApiInfo): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: info.title, version: info.version, description: info.description },
      tags: info.tags ? [...info.tags] : [],
      components: { securitySchemes: (info.securitySchemes ?? {}) as never },
      security: info.security ? [...info.security] : [],
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, tryItOutEnabled: true },
    staticCSP: true,
    transformSpecificationClone: true,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
