/**
 * `stream: true`: Server-Sent Events exactly as OpenAI sends them (`data: {chunk}` lines ending
 * with `data: [DONE]`, errors after the commit as `data: {"error": ...}`). The session itself
 * (commit, keep-alive, metering, endings) is the pipeline's; this is the door's dialect.
 */
import { openAIChat } from '@app/provider-adapters';
import { withCost } from '../../pipeline/answer-cost.ts';
import { sseErrorEvent } from '../../pipeline/failures.ts';
import type { StreamDialect } from '../../pipeline/stream-dialect.ts';
import type { UpstreamCall } from '../../pipeline/upstream-call.ts';
import { wantsUsage } from './inputs.ts';
import { chunkChars, shapeNativeChunk } from './native-chunks.ts';
import type { ChatRequestBody } from './request-schema.ts';

const data = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\n\n`;

export function chatDialect(call: UpstreamCall, body: ChatRequestBody): StreamDialect {
  const { plan, reply } = call.init;
  const includeUsage = wantsUsage(body);
  const envelope = {
    id: `chatcmpl-${reply.request.id}`,
    model: plan.model,
    created: Math.floor(Date.now() / 1000),
  };
  const encoder = new openAIChat.ChatChunkEncoder(envelope, includeUsage);
  return {
    // A chunk of the upstream's own API, forwarded with the gateway's model name and usage shaping.
    native: (event, cost) => ({
      text: shapeNativeChunk(event.data, plan.model, includeUsage, cost).map(data).join(''),
      chars: chunkChars(event.data),
    }),
    // Only the final usage chunk has a usage object: it gets the cost.
    encode: (event, cost) =>
      encoder
        .encode(event)
        .map((chunk) => data(chunk.usage ? withCost(chunk, 'usage', cost()) : chunk))
        .join(''),
    terminator: 'data: [DONE]\n\n',
    // Some OpenAI-compatible upstreams end without [DONE]: complete once the usage chunk came.
    completeOnUsage: true,
    errorEvent: sseErrorEvent,
  };
}
