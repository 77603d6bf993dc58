import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { AccessControl, Ledger, RateLimiter, Router } from '../../contracts.ts';
import { pendingUntilClose, sendAsBuilt } from '../../pipeline/answer.ts';
import { appliedHeadersHook } from '../../pipeline/applied.ts';
import type { Upstream } from '../../upstream/index.ts';
import { ChatHeadersSchema } from '../chat-completions/openapi.ts';
import { responsesHandler } from './handler.ts';
import { RESPONSES_DESCRIPTION, RESPONSES_EXAMPLES, RESPONSES_RESPONSES } from './openapi.ts';
import { ResponsesRequestSchema } from './request-schema.ts';

export interface ResponsesDeps {
  readonly access: AccessControl;
  readonly ledger: Ledger;
  readonly router: Router;
  readonly upstream: Upstream;
  readonly limiter: RateLimiter;
  /** Counts upstream usage figures beyond what a request could produce (a metric). */
  readonly onUsageAnomaly?: (provider: string) => void;
}

/** POST /v1/responses. Errors keep the OpenAI envelope of the app's error handler. */
export function responsesRoutes(deps: ResponsesDeps): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const pending = pendingUntilClose(app);
    const handle = responsesHandler({ ...deps, log: app.log, pending });
    app.post(
      '/v1/responses',
      {
        schema: {
          tags: ['responses'],
          summary: 'Create a model response (OpenAI Responses API)',
          description: RESPONSES_DESCRIPTION,
          security: [{ bearerAuth: [] }],
          headers: ChatHeadersSchema,
          body: ResponsesRequestSchema,
          response: RESPONSES_RESPONSES,
        },
        config: { bodyExamples: RESPONSES_EXAMPLES },
        serializerCompiler: sendAsBuilt,
        onSend: appliedHeadersHook,
      },
      (request, reply) => handle(request, request.body, reply),
    );
  };
}
