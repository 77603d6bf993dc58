/**
 * POST /v1/chat/completions as a front door: OpenAI's request read for routing and cost, its
 * completion or chunk stream written back; errors keep the app's OpenAI envelope.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { RoutePlan } from '../../contracts.ts';
import { gatewayErrors } from '../../errors.ts';
import { withoutFallbacks } from '../../pipeline/fallbacks.ts';
import type { DecodedCall, FrontDoor } from '../../pipeline/front-door.ts';
import type { Upstream } from '../../upstream/index.ts';
import { type FrontDoorsDeps, frontDoorRoutes } from '../register.ts';
import { chatSource } from './decode.ts';
import { choicesOf, estimatePromptTokens, maxOutputTokens } from './estimate.ts';
import { isStream, needsOf, routingHeaders } from './inputs.ts';
import { CHAT_EXAMPLES, CHAT_RESPONSES, ChatHeadersSchema } from './openapi.ts';
import { type ChatRequestBody, ChatRequestSchema } from './request-schema.ts';
import { encodeJson } from './respond-json.ts';
import { chatDialect } from './respond-stream.ts';

const DESCRIPTION = `OpenAI-compatible chat completions. Name the model as \`<base>[:<modifier>]...[@<provider>]\`
(modifiers: effort \`none|minimal|low|medium|high|xhigh|max\`, tier \`flex\`, compression
\`nocompress\`), or use the \`X-Gateway-Provider\`, \`X-Gateway-Effort\`, \`X-Gateway-Service-Tier\`
and \`X-Gateway-Compression\` headers. Every response carries \`X-Gateway-Applied\` (and
\`X-Gateway-Ignored\` when a header input was not usable). With \`stream: true\` the answer is
Server-Sent Events exactly as OpenAI sends them. Unknown body fields are passed to the upstream.

Try it: press **Authorize** and paste a token (see the security scheme), pick an example body, **Execute**.
Every example runs as it is against the embedded default (its simulated providers).`;

/** Every completion asked for is reserved for; past the configured number, none is served. */
function refuseTooManyChoices(body: ChatRequestBody, max: number): void {
  if (choicesOf(body) <= max) return;
  const reason = `'n' is ${choicesOf(body)}; this gateway generates at most ${max} completions per request.`;
  throw gatewayErrors.create('invalid_request', { reason }, { param: 'n' });
}

function decode(request: FastifyRequest, body: ChatRequestBody, config: Upstream['config']): DecodedCall {
  refuseTooManyChoices(body, config.maxChoices);
  return {
    model: body.model,
    fallbackModels: body.models,
    inputs: routingHeaders(request.headers, body),
    needs: needsOf(body),
    promptTokens: estimatePromptTokens(body),
    outputTokens: (chosen: RoutePlan) => maxOutputTokens(body, chosen),
    source: chatSource(withoutFallbacks(body)),
    stream: isStream(body),
  };
}

export const chatCompletions: FrontDoor<ChatRequestBody> = {
  name: 'chat-completions',
  routes: [
    {
      path: '/v1/chat/completions',
      serves: 'call',
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
    },
  ],
  decode,
  encodeJson,
  streamDialect: chatDialect,
};

/** This door alone as a plugin (a server of Chat Completions only, as tests build one). */
export const chatRoutes = (deps: FrontDoorsDeps): FastifyPluginAsync =>
  frontDoorRoutes(chatCompletions, deps);
