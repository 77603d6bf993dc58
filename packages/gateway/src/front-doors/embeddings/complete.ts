/**
 * One attempt of an embeddings call: its upstream requests (one, or a batch split as the
 * upstream takes it) sent a few at a time, their answers joined in input order by the adapter,
 * and the call settled on the input tokens the upstream reported. Any request failing fails the
 * attempt (the budget goes back and failover may try another provider); no request is started
 * after one failed.
 */
import {
  type EmbeddingsReply,
  type EmbeddingsRequest,
  type EmbeddingsResult,
  type EmbeddingsTranslator,
  type UpstreamHttpRequest,
  usageFromMeters,
} from '@app/provider-adapters';
import { endOnSendError, failOnParseError } from '../../pipeline/complete-json.ts';
import type { UpstreamCall } from '../../pipeline/upstream-call.ts';

/** Upstream requests of one batch in flight at once: Titan and Vertex take one input a call. */
export const PARALLEL_REQUESTS = 4;

async function sendOne(call: UpstreamCall, request: UpstreamHttpRequest): Promise<EmbeddingsReply> {
  const response = await call.send(request);
  if (response.status < 200 || response.status >= 300) throw await call.failFromResponse(response);
  return { body: await response.text(), headers: response.headers };
}

async function sendAll(
  call: UpstreamCall,
  batch: readonly UpstreamHttpRequest[],
): Promise<EmbeddingsReply[]> {
  const replies: EmbeddingsReply[] = [];
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < batch.length) {
      const index = next++;
      try {
        replies[index] = await sendOne(call, batch[index] as UpstreamHttpRequest);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const workers = Array.from({ length: Math.min(PARALLEL_REQUESTS, batch.length) }, worker);
  await Promise.all(workers);
  return replies;
}

/** The joined vectors, or undefined when the client has gone away; upstream failures are thrown. */
export async function completeEmbeddings(
  call: UpstreamCall,
  translator: EmbeddingsTranslator,
  request: EmbeddingsRequest,
): Promise<EmbeddingsResult | undefined> {
  const { outcome } = call.init;
  let replies: EmbeddingsReply[];
  try {
    replies = await sendAll(call, call.init.batch ?? [call.init.request]);
  } catch (error) {
    // The client gone: the upstream had the inputs, charged as estimated.
    return endOnSendError(outcome, error);
  }
  let result: EmbeddingsResult;
  try {
    result = translator.parseResponses(replies, request);
  } catch (error) {
    failOnParseError(outcome, error);
  }
  const { meters, estimated } = result.usage;
  // Without the upstream's count the outcome charges the door's estimate, marked as one.
  outcome.succeeded({ usage: estimated ? undefined : usageFromMeters(meters), generatedChars: 0 });
  return result;
}
