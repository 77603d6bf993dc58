import { installErrorHandler } from '@app/http-kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { AccessControl, Ledger, RateLimiter, Router } from '../../contracts.ts';
import { gatewayErrorFromFramework } from '../../errors.ts';
import { pendingUntilClose, sendAsBuilt } from '../../pipeline/answer.ts';
import { appliedHeadersHook } from '../../pipeline/applied.ts';
import type { Upstream } from '../../upstream/index.ts';
import { renderAnthropicError } from './anthropic-errors.ts';
import { countTokensHandler } from './count-tokens.ts';
import { messagesHandler } from './handler.ts';
import {
  COUNT_DESCRIPTION,
  COUNT_EXAMPLES,
  COUNT_RESPONSES,
  MESSAGES_DESCRIPTION,
  MESSAGES_EXAMPLES,
  MESSAGES_RESPONSES,
  MessagesCreateHeadersSchema,
  MessagesHeadersSchema,
} from './openapi.ts';
import { CountTokensRequestSchema, MessagesRequestSchema } from './request-schema.ts';

export interface MessagesDeps {
  readonly access: AccessControl;
  readonly ledger: Ledger;
  readonly router: Router;
  readonly upstream: Upstream;
  readonly limiter: RateLimiter;
  /** Counts upstream usage figures beyond what a request could produce (a metric). */
  readonly onUsageAnomaly?: (provider: string) => void;
  /** `compressed` to a configured share of the prompt (messages and count_tokens alike). */
  readonly compression?: { readonly targetRatio?: number | undefined };
}

const PREFIX = '/v1/messages';

/**
 * The routes under /v1/messages, errors included (unknown sub-paths too), answer in Anthropic's
 * envelope: the kit's error handler is installed again in this scope with another renderer.
 */
function scoped(deps: MessagesDeps): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    installErrorHandler(app, {
      fromFramework: (kind, message, request, param) =>
        gatewayErrorFromFramework(kind, message, request.method, request.url.split('?')[0] ?? '/', param),
      render: renderAnthropicError,
    });
    // Anthropic's SDKs read the request id from `request-id` (X-Request-Id is the kit's).
    app.addHook('onRequest', async (request, reply) => {
      reply.header('request-id', request.id);
    });
    const pending = pendingUntilClose(app);
    const handle = messagesHandler({ ...deps, log: app.log, pending });
    const count = countTokensHandler({ ...deps, pending });
    const common = {
      tags: ['messages'],
      security: [{ bearerAuth: [] }],
      headers: MessagesHeadersSchema,
    };
    // '' is the prefix itself: '/' would be listed in the OpenAPI document as /v1/messages/.
    app.post(
      '',
      {
        schema: {
          ...common,
          headers: MessagesCreateHeadersSchema,
          summary: 'Create a message (Anthropic Messages API)',
          description: MESSAGES_DESCRIPTION,
          body: { ...MessagesRequestSchema, 'x-examples': MESSAGES_EXAMPLES },
          response: MESSAGES_RESPONSES,
        },
        serializerCompiler: sendAsBuilt,
        onSend: appliedHeadersHook,
      },
      (request, reply) => handle(request, request.body, reply),
    );
    app.post(
      '/count_tokens',
      {
        schema: {
          ...common,
          summary: 'Count the input tokens of a message',
          description: COUNT_DESCRIPTION,
          body: { ...CountTokensRequestSchema, 'x-examples': COUNT_EXAMPLES },
          response: COUNT_RESPONSES,
        },
        serializerCompiler: sendAsBuilt,
        onSend: appliedHeadersHook,
      },
      (request, reply) => count(request, request.body, reply),
    );
  };
}

export function messagesRoutes(deps: MessagesDeps): FastifyPluginAsync {
  return async (app) => {
    await app.register(scoped(deps), { prefix: PREFIX });
  };
}
