import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { authenticate } from '../auth/credentials.ts';
import { energyErrors } from '../errors.ts';
import { sendRecord } from '../format/respond.ts';
import { credentialsRepresentation } from '../resources/reference.ts';
import type { RouteContext } from './context.ts';
import { errorResponses, FormatQuery, recordContent } from './docs.ts';
import { inputBody } from './request-docs.ts';
import { readInput } from './http.ts';

const credentialsInput = [
  { attribute: 'email', names: ['email'], kind: 'string', required: true },
  { attribute: 'password', names: ['password'], kind: 'string', required: true, maxLength: 1024 },
] as const;

/**
 * Email and password for a new API token (one more per call; the ten newest stay valid). The
 * only route without a token. Wrong email and wrong password are the same 401.
 */
export function userRoutes(app: FastifyInstance, context: RouteContext): void {
  app.post(
    '/api/v1/users/authenticate',
    {
      config: { public: true },
      schema: {
        tags: ['users'],
        summary: 'Exchange email and password for an API token',
        security: [],
        querystring: Type.Omit(FormatQuery, ['token']),
        body: inputBody(credentialsInput, 'user', {
          email: 'facilities@example.com',
          password: 'correct horse battery',
        }),
        response: {
          200: {
            description: 'A new token; shown only in this response',
            content: recordContent(credentialsRepresentation, { user_id: 1, token: 'q3Vh2Xr0...' }),
          },
          ...errorResponses([400, 401, 406, 413, 415, 422, 500]),
        },
      },
    },
    async (request, reply) => {
      const values = readInput(request, credentialsInput, 'user', 'create');
      const credentials = await authenticate(context.users, String(values.email), String(values.password));
      if (!credentials) throw energyErrors.create('invalid_credentials', {});
      return sendRecord(request, reply, credentialsRepresentation, { ...credentials });
    },
  );
}
