/**
 * One attempt of an embeddings call: its upstream requests (one, or a batch split as the
 * upstream takes it) sent a few at a time, their answers joined in input order by the adapter,
 * and the call settled on the input tokens the upstream reported. Any request failing fails the
 * attempt (failover may try another provider); no request is started after one failed, and those
 * in flight are waited for. The requests that answered were billed by the upstream, so the failed
 * attempt is charged their input tokens, as a chat attempt that produced output is.
 */
import {
  type EmbeddingsReply,
  type EmbeddingsRequest,
  type EmbeddingsResult,
  type EmbeddingsTranslator,
  METERS,
  meters,
  type UpstreamFailure,
  type UpstreamHttpRequest,
  usageFromMeters,
} from '@app/provider-adapters';
import type { Produced } from '../../pipeline/call-outcome.ts';
import { endOnSendError, failOnParseError } from '../../pipeline/complete-json.ts';
import type { UpstreamCall } from '../../pipeline/upstream-call.ts';

/** Upstream requests of one batch in flight at once: Titan and Vertex take one input a call. */
export const PARALLEL_REQUESTS = 4;

/** A batch's answers, and what stopped it: a non-2xx answer's failure or a thrown error. */
interface Sent {
  readonly replies: (EmbeddingsReply | undefined)[];
  readonly stop?: { readonly failure: UpstreamFailure } | { readonly error: unknown };
}

async function sendAll(call: UpstreamCall, batch: readonly UpstreamHttpRequest[]): Promise<Sent> {
  const replies: (EmbeddingsReply | undefined)[] = [];
  let next = 0;
  let failed = false;
  let stop: Sent['stop'];
  const worker = async () => {
    while (!failed && next < batch.length) {
      const index = next++;
      try {
        const response = await call.send(batch[index] as UpstreamHttpRequest);
        if (response.status >= 200 && response.status < 300)
          replies[index] = { body: await response.text(), headers: response.headers };
        else {
          failed = true;
          const failure = await call.failureOf(response);
          stop ??= { failure };
        }
      } catch (error) {
        failed = true;
        stop ??= { error };
      }
    }
  };
  // Workers do not throw: every request in flight ends before the attempt is decided.
  await Promise.all(Array.from({ length: Math.min(PARALLEL_REQUESTS, batch.length) }, worker));
  return stop ? { replies, stop } : { replies };
}

/**
 * What the requests that answered before the batch failed are charged: the input tokens they
 * report. None answered, or one reports no count: nothing (the attempt is released, as before).
 */
function answered(translator: EmbeddingsTranslator, replies: Sent['replies']): Produced | undefined {
  const present = replies.filter((reply) => reply !== undefined);
  if (present.length === 0) return undefined;
  const tokens = translator.reportedInputTokens(present);
  if (tokens === undefined) return undefined;
  return { usage: usageFromMeters(meters({ [METERS.input]: tokens })), generatedChars: 0 };
}

/** The joined vectors, or undefined when the client has gone away; upstream failures are thrown. */
export async function completeEmbeddings(
  call: UpstreamCall,
  translator: EmbeddingsTranslator,
  request: EmbeddingsRequest,
): Promise<EmbeddingsResult | undefined> {
  const { outcome } = call.init;
  const { replies, stop } = await sendAll(call, call.init.batch ?? [call.init.request]);
  if (stop) {
    const produced = answered(translator, replies);
    if ('failure' in stop) throw outcome.failed(stop.failure, produced);
    // The client gone: the upstream had the inputs, charged as estimated.
    return endOnSendError(outcome, stop.error, produced);
  }
  let result: EmbeddingsResult;
  try {
    result = translator.parseResponses(replies as EmbeddingsReply[], request);
  } catch (error) {
    failOnParseError(outcome, error);
  }
  const { meters: reported, estimated } = result.usage;
  // Without the upstream's count the outcome charges the door's estimate, marked as one.
  outcome.succeeded({ usage: estimated ? undefined : usageFromMeters(reported), generatedChars: 0 });
  return result;
}
