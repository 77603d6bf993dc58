import { findReservedKey, reservedKeyMessage } from '@app/http-kit';
import { parse as parseQueryString } from 'fast-querystring';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { requireUser } from './auth/require-user.ts';
import type { EnergyConfig } from './config.ts';
import type { EnergyDatabase } from './db/schema.ts';
import { energyErrors } from './errors.ts';
import { isPlainObject } from './input/params.ts';
import { parseXmlParams, XmlInputError } from './input/xml-params.ts';
import { buildingRoutes } from './routes/buildings.ts';
import { routeContext } from './routes/context.ts';
import { elevatorRoutes } from './routes/elevators.ts';
import { operationRoutes } from './routes/operations.ts';
import { referenceRoutes } from './routes/reference.ts';
import { userRoutes } from './routes/users.ts';

function isPublic(request: FastifyRequest): boolean {
  return (request.routeOptions.config as { public?: boolean }).public === true;
}

/**
 * Request bodies the service reads besides JSON: XML by Rails' rules, and HTML forms (into
 * null-prototype objects, as query strings are).
 */
function bodyParsers(api: FastifyInstance): void {
  // Fastify reads text/plain by default; the reference service did not, so it is a 415 here.
  api.removeContentTypeParser('text/plain');
  api.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, parseQueryString(String(body))),
  );
  api.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseXmlParams(String(body)));
    } catch (error) {
      if (error instanceof XmlInputError) done(energyErrors.create('bad_request', { reason: error.message }));
      else done(error as Error);
    }
  });
}

/**
 * The `/api/v1` routes. Validation is the service's own (422 with per-field messages in the
 * negotiated format, accepting every input form of the decisions), so Fastify's schema
 * validation and serializers are switched off here: the schemas document, they do not judge.
 */
export function energyApi(config: EnergyConfig, db: Kysely<EnergyDatabase>) {
  return async (api: FastifyInstance): Promise<void> => {
    const context = routeContext(config, db);
    api.setValidatorCompiler(() => (value) => ({ value }));
    api.setSerializerCompiler(() => (data) => JSON.stringify(data));
    bodyParsers(api);
    const authenticate = requireUser(context.users);
    // One callback-style hook for both checks: async hooks cost a promise each per request.
    api.addHook('preHandler', (request, _reply, done) => {
      const reserved = findReservedKey(request.body);
      if (request.body !== undefined && request.body !== null && !isPlainObject(request.body)) {
        done(
          energyErrors.create('bad_request', { reason: 'The request body must be an object of parameters.' }),
        );
      } else if (reserved !== undefined) {
        done(energyErrors.create('bad_request', { reason: reservedKeyMessage(reserved) }));
      } else if (isPublic(request)) done();
      else authenticate(request, done);
    });
    userRoutes(api, context);
    buildingRoutes(api, context);
    elevatorRoutes(api, context);
    operationRoutes(api, context);
    referenceRoutes(api, context);
  };
}
