import type { IncomingMessage } from 'node:http';
import { type Database, openServiceDatabase } from '@app/db';
import { type App, createServer, type OpenApiInfo } from '@app/http-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { energyApi } from './api.ts';
import type { EnergyConfig } from './config.ts';
import { ENERGY_DATABASE } from './db/database.ts';
import type { EnergyDatabase } from './db/schema.ts';
import { energyErrorFromFramework, energyErrors } from './errors.ts';
import {
  extensionOf,
  negotiate,
  rememberExtension,
  rememberFormat,
  splitExtension,
} from './format/negotiate.ts';
import { renderError } from './format/respond.ts';
import { energyLanding } from './landing.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Where this service's data is, without credentials (printed at start-up). */
    databaseLabel: string;
  }
}

export interface BuildOptions {
  /** An already-open database (tests share one across app instances); otherwise config.databaseUrl. */
  readonly database?: Database<EnergyDatabase>;
  readonly logStream?: NodeJS.WritableStream;
  readonly defaultMetrics?: boolean;
}

/** `/operations/1.xml` is routed as `/operations/1`; the extension is kept for negotiation. */
function rewriteUrl(raw: IncomingMessage): string {
  const { url, extension } = splitExtension(raw.url ?? '/');
  if (extension !== undefined) rememberExtension(raw, extension);
  return url;
}

const TOKEN_SECURITY = {
  tokenParam: {
    type: 'apiKey',
    in: 'query',
    name: 'token',
    description: 'The `token` query (or body) parameter',
  },
  // Code spans: Swagger UI renders descriptions as Markdown, where a bare <token> is an HTML tag.
  bearer: { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer <token>`' },
  railsToken: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: '`Authorization: Token token=<token>`',
  },
};

const OPENAPI: OpenApiInfo = {
  title: 'Energy asset service',
  version: '1.0.0',
  description:
    'Operations of buildings, fan controls and roof types, in JSON and XML (Rails-compatible). ' +
    'Choose the format with a .json/.xml extension, a format parameter or Accept; JSON by default.',
  tags: [
    { name: 'users', description: 'API tokens' },
    { name: 'buildings', description: "The caller's buildings" },
    { name: 'elevators', description: 'Elevators of a building' },
    { name: 'building operations', description: 'Operating schedules and loads of a building' },
    { name: 'fan_controls', description: 'Reference list, read-only' },
    { name: 'roof_types', description: 'Reference list, read-only' },
  ],
  securitySchemes: TOKEN_SECURITY,
  security: [{ tokenParam: [] }, { bearer: [] }, { railsToken: [] }],
};

/** Negotiation runs first, before the body is read: a format the service cannot write is 406. */
function negotiation(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  if (!request.url.startsWith('/api/')) {
    done();
    return;
  }
  const query = request.query as Record<string, unknown>;
  const result = negotiate({
    extension: extensionOf(request.raw),
    formatParam: query.format,
    accept: request.headers.accept,
  });
  if ('unsupported' in result) {
    done(energyErrors.create('not_acceptable', { format: result.unsupported }));
    return;
  }
  rememberFormat(request.raw, result.format);
  done();
}

/** Builds the energy asset service: migrations run, routes registered, nothing listening yet. */
export async function buildApp(config: EnergyConfig, options: BuildOptions = {}): Promise<App> {
  const database = await openServiceDatabase<EnergyDatabase>(
    ENERGY_DATABASE,
    config,
    options.database ? { database: options.database } : {},
  );
  const app = await createServer({
    service: 'energy',
    log: { level: config.logLevel, format: config.logFormat },
    bodyLimitBytes: config.bodyLimitBytes,
    shedding: config.shedding,
    defaultMetrics: options.defaultMetrics ?? true,
    ...(options.logStream ? { logStream: options.logStream } : {}),
    ready: () => database.ping(),
    fastify: { rewriteUrl },
    openapi: OPENAPI,
    errors: {
      fromFramework: (kind, message, request) =>
        energyErrorFromFramework(kind, message, request.headers['content-type']),
      render: renderError,
    },
  });
  app.decorate('databaseLabel', database.label);
  if (database.legacyNotice) app.log.warn(database.legacyNotice);
  app.addHook('onRequest', negotiation);
  await app.register(energyLanding(OPENAPI));
  await app.register(energyApi(config, database.db));
  if (!options.database) app.addHook('onClose', async () => database.close());
  return app;
}
