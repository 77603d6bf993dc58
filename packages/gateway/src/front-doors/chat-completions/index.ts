import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { AccessControl, Ledger, Router } from '../../contracts.ts';
import { appliedHeadersHook } from '../../pipeline/applied.ts';
import type { Upstream } from '../../upstream/index.ts';
import { chatHandler } from './handler.ts';
import { ChatRequestSchema } from './request-schema.ts';

export interface ChatDeps {
  readonly access: AccessControl;
  readonly ledger: Ledger;
  readonly router: Router;
  readonly upstream: Upstream;
  /** Counts upstream usage figures beyond what a request could produce (a metric). */
  readonly onUsageAnomaly?: (provider: string) => void;
}

const DESCRIPTION = `OpenAI-compatible chat completions. Name the model as \`<base>[:<modifier>]...[@<provider>]\`
(modifiers: effort \`none|minimal|low|medium|high|xhigh|max\`, tier \`flex\`, compression
\`nocompress\`), or use the \`X-Gateway-Provider\`, \`X-Gateway-Effort\`, \`X-Gateway-Service-Tier\`
and \`X-Gateway-Compression\` headers. Every response carries \`X-Gateway-Applied\` (and
\`X-Gateway-Ignored\` when a header input was not usable). With \`stream: true\` the answer is
Server-Sent Events exactly as OpenAI sends them. Unknown body fields are passed to the upstream.`;

export function chatRoutes(deps: ChatDeps): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const pending = new Set<Promise<unknown>>();
    const handle = chatHandler({ ...deps, log: app.log, pending });
    app.post(
      '/v1/chat/completions',
      {
        schema: {
          tags: ['chat'],
          summary: 'Create a chat completion',
          description: DESCRIPTION,
          security: [{ bearerAuth: [] }],
          body: ChatRequestSchema,
        },
        onSend: appliedHeadersHook,
      },
      (request, reply) => handle(request, request.body, reply),
    );
    // Ledger writes of answered requests finish before the database closes.
    app.addHook('onClose', async () => {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    });
  };
}
