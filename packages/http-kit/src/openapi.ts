import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/** A named request-body example for /docs: "Try it out" offers each, the first filled in. */
export interface BodyExample {
  readonly summary?: string;
  readonly value: unknown;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Named JSON body examples of the route, shown in /docs. Kept out of the validation schema
     * (Ajv refuses unknown keywords) and added to the document only.
     */
    bodyExamples?: Readonly<Record<string, BodyExample>>;
  }
}

/** The route's body schema as documented: with its named examples, when it has some. */
function withBodyExamples({
  schema,
  url,
  route,
}: {
  schema: unknown;
  url: string;
  route: { config?: unknown };
}) {
  const examples = (route.config as { bodyExamples?: unknown } | undefined)?.bodyExamples;
  const body = (schema as { body?: object } | undefined)?.body;
  if (!examples || !body) return { schema, url };
  return { schema: { ...(schema as object), body: { ...body, 'x-examples': examples } }, url };
}

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
    transform: withBodyExamples as never,
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, tryItOutEnabled: true },
    staticCSP: true,
    transformSpecificationClone: true,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
