import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { AccessControl, Ledger, RateLimiter, Router } from '../../contracts.ts';
import { pendingUntilClose, sendAsBuilt } from '../../pipeline/answer.ts';
import { appliedHeadersHook } from '../../pipeline/applied.ts';
import type { Upstream } from '../../upstream/index.ts';
import { chatHandler } from './handler.ts';
import { CHAT_EXAMPLES, CHAT_RESPONSES, ChatHeadersSchema } from './openapi.ts';
import { ChatRequestSchema } from './request-schema.ts';

export interface ChatDeps {
  readonly access: AccessControl;
  readonly ledger: Ledger;
  readonly router: Router;
  readonly upstream: Upstream;
  readonly limiter: RateLimiter;
  /** Counts upstream usage figures beyond what a request could produce (a metric). */
  readonly onUsageAnomaly?: (provider: string) => void;
}

const DESCRIPTION = `OpenAI-compatible chat completions. Name the model as \`<base>[:<modifier>]...[@<provider>]\`
(modifiers: effort \`none|minimal|low|medium|high|xhigh|max\`, tier \`flex\`, compression
\`nocompress\`), or use the \`X-Gateway-Provider\`, \`X-Gateway-Effort\`, \`X-Gateway-Service-Tier\`
and \`X-Gateway-Compression\` headers. Every response carries \`X-Gateway-Applied\` (and
\`X-Gateway-Ignored\` when a header input was not usable). With \`stream: true\` the answer is
Server-Sent Events exactly as OpenAI sends them. Unknown body fields are passed to the upstream.

Try it: press **Authorize** and paste a token (see the security scheme), pick an example body, **Execute**.
Every example runs as it is against the embedded default (its simulated providers).`;

export function chatRoutes(deps: ChatDeps): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const pending = pendingUntilClose(app);
    const handle = chatHandler({ ...deps, log: app.log, pending });
    app.post(
      '/v1/chat/completions',
      {
        schema: {
          tags: ['chat'],
          summary: 'Create a chat completion',
          description: DESCRIPTION,
          security: [{ bearerAuth: [] }],
          headers: ChatHeadersSchema,
          body: ChatRequestSchema,
          response: CHAT_RESPONSES,
        },
        config: { bodyExamples: CHAT_EXAMPLES },
        serializerCompiler: sendAsBuilt,
        onSend: appliedHeadersHook,
      },
      (request, reply) => handle(request, request.body, reply),
    );
  };
}
