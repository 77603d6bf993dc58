/** `stream` absent or false: one JSON completion, settled from its usage. */
import { isAppError } from '@app/http-kit';
import { AdapterParseError, type JsonObject, type ModelResponse, openAIChat } from '@app/provider-adapters';
import type { FastifyRequest } from 'fastify';
import { appliedState } from '../../pipeline/applied.ts';
import { failureFromTransport } from '../../pipeline/failures.ts';
import type { UpstreamCall } from '../../pipeline/upstream-call.ts';
import { TransportError } from '../../upstream/index.ts';

/** Characters of generated text, for estimating output tokens when the upstream sent no usage. */
function generatedChars(response: ModelResponse): number {
  let chars = 0;
  for (const part of response.content) {
    if (part.type === 'text') chars += part.text.length;
    else if (part.type === 'tool_call') chars += part.arguments.length + part.name.length;
  }
  return chars;
}

async function upstreamBody(call: UpstreamCall): Promise<string | undefined> {
  const { outcome } = call.init;
  try {
    const response = await call.send();
    if (response.status < 200 || response.status >= 300) throw await call.failFromResponse(response);
    return await response.text();
  } catch (error) {
    if (isAppError(error) || !(error instanceof TransportError)) throw error;
    if (error.kind === 'aborted') {
      // The upstream had the prompt; it is charged, nothing was generated for the client.
      outcome.clientLeft();
      return undefined;
    }
    throw outcome.failed(failureFromTransport(error));
  }
}

/** Resolves to the completion to send, or undefined when the client has gone away. */
export async function respondJson(
  call: UpstreamCall,
  request: FastifyRequest,
): Promise<JsonObject | undefined> {
  const { adapter, plan, outcome, clientApi } = call.init;
  const body = await upstreamBody(call);
  if (body === undefined) return undefined;
  let parsed;
  try {
    parsed = adapter.parseResponse(body, { clientApi });
  } catch (error) {
    if (!(error instanceof AdapterParseError)) throw error;
    throw outcome.failed({ kind: 'server', status: 502, message: `${error.message}.` });
  }
  const { response, native } = parsed;
  outcome.succeeded({
    usage: response.usage,
    generatedChars: response.usage ? 0 : generatedChars(response),
    ...(response.servedTier ? { servedTier: response.servedTier } : {}),
  });
  // X-Gateway-Applied reports the tier the upstream says it served.
  const applied = appliedState(request);
  if (response.servedTier && applied.options)
    applied.options = { ...applied.options, tier: response.servedTier };
  if (native) return { ...native.body, model: plan.model };
  const envelope = {
    id: response.id || `chatcmpl-${request.id}`,
    model: plan.model,
    created: Math.floor(Date.now() / 1000),
  };
  return openAIChat.encodeChatCompletion(response, envelope);
}
