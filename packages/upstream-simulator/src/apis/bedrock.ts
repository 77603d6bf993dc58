/**
 * AWS Bedrock Runtime's Converse API at `/bedrock/model/{modelId}/converse` and
 * `/converse-stream`: SigV4 verified as AWS does, Claude's refusals (see bedrock-checks.ts),
 * answers as Converse JSON or event-stream frames, and failures as Bedrock sends them (HTTP
 * errors with `x-amzn-errortype`, exception frames mid-stream). Converse has no free-form body
 * field, so simulated faults come from `x-sim-*` headers or the simulator's configuration.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Behaviour, behaviourFor } from '../faults.ts';
import { buildReply } from '../reply.ts';
import { DEFAULT_REPLY_TOKENS, type SimState, sendJson } from '../respond.ts';
import { resolveModel, requestRefusal } from './bedrock-checks.ts';
import { converseBody, exceptionFrame, simRequest, type StreamFrame, streamFrames } from './bedrock-reply.ts';
import { converseCacheWrites } from './prompt-cache.ts';
import { type AwsRefusal, verifySigV4 } from './bedrock-sigv4.ts';
import type { SimApi, SimContext, SimExchange } from './types.ts';

const ROUTE = /^\/bedrock\/model\/([^/]+)\/(converse|converse-stream)$/;
const CORAL = 'http://internal.amazon.com/coral/com.amazon.bedrock/';
const FAULT_TYPES: Readonly<Record<number, string>> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  503: 'ServiceUnavailableException',
};

export function sendAwsError(
  res: ServerResponse,
  refusal: AwsRefusal,
  headers: Record<string, string> = {},
): void {
  sendJson(res, refusal.status, JSON.stringify({ message: refusal.message }), {
    'x-amzn-errortype': `${refusal.type}:${CORAL}`,
    'x-amzn-requestid': randomUUID(),
    ...headers,
  });
}

export function fail(res: ServerResponse, behaviour: Behaviour): void {
  const status = behaviour.failStatus ?? 500;
  // Deliberately internal-looking, so tests can prove the gateway never passes it on.
  const message =
    behaviour.failMessage ??
    `Simulated failure ${status} on ip-10-0-0-7.ec2.internal for arn:aws:bedrock:us-east-1:123456789012:inference-profile/sim`;
  const type = FAULT_TYPES[status] ?? 'InternalServerException';
  sendAwsError(
    res,
    { status, type, message },
    behaviour.retryAfter ? { 'retry-after': behaviour.retryAfter } : {},
  );
}

async function sendStream(state: SimState, res: ServerResponse, frames: StreamFrame[], behaviour: Behaviour) {
  res.writeHead(200, {
    'content-type': 'application/vnd.amazon.eventstream',
    'x-amzn-requestid': randomUUID(),
  });
  res.flushHeaders();
  if (behaviour.hang === 'body') return;
  const delays = { first: behaviour.firstTokenDelayMs ?? 0, each: behaviour.tokenDelayMs ?? 0 };
  let tokens = 0;
  for (const [index, frame] of frames.entries()) {
    const wait = index === 0 ? delays.first : frame.token ? delays.each : 0;
    if (wait > 0) await sleep(wait, undefined, { signal: state.closing }).catch(() => {});
    if (res.destroyed || state.closing.aborted) return;
    if (frame.token && tokens === behaviour.dropAfterTokens) {
      state.stats.abortedStreams++;
      res.destroy();
      return;
    }
    if (frame.token && tokens === behaviour.failAfterTokens) {
      res.end(
        exceptionFrame(
          'modelStreamErrorException',
          'The simulated model stream failed on ip-10-0-0-7.ec2.internal.',
        ),
      );
      return;
    }
    if (frame.token) tokens++;
    res.write(frame.bytes);
  }
  res.end();
}

async function answer(
  context: SimContext,
  exchange: SimExchange,
  modelId: string,
  stream: boolean,
): Promise<void> {
  const { state } = context;
  const body = exchange.body as Record<string, unknown>;
  const behaviour = behaviourFor(exchange.req.headers, {}, state.options.behaviour ?? {});
  if (behaviour.hang === 'headers') return;
  if (behaviour.failStatus !== undefined) return fail(exchange.res, behaviour);
  const reply = buildReply(
    simRequest(modelId, body),
    behaviour.replyTokens ?? DEFAULT_REPLY_TOKENS,
    behaviour.toolTurn,
  );
  const cache = converseCacheWrites(body, reply.promptTokens);
  exchange.reportUsage(reply.usage, cache);
  if (stream) return sendStream(state, exchange.res, streamFrames(reply, cache), behaviour);
  if (behaviour.hang === 'body') {
    exchange.res.writeHead(200, { 'content-type': 'application/json' });
    exchange.res.flushHeaders();
    return;
  }
  const delay = (behaviour.firstTokenDelayMs ?? 0) + (behaviour.tokenDelayMs ?? 0) * reply.tokens.length;
  if (delay > 0) await sleep(delay, undefined, { signal: state.closing }).catch(() => {});
  if (!exchange.res.destroyed)
    sendJson(exchange.res, 200, converseBody(reply, cache), { 'x-amzn-requestid': randomUUID() });
}

export const bedrockApi: SimApi = {
  name: 'bedrock',
  matches: (method, path) => method === 'POST' && ROUTE.test(path),
  async handle(context: SimContext, exchange: SimExchange) {
    const refusedAuth = await verifySigV4(context, exchange);
    if (refusedAuth !== undefined) return sendAwsError(exchange.res, refusedAuth);
    const [, rawModel = '', action] = ROUTE.exec(exchange.path) ?? [];
    if (typeof exchange.body !== 'object' || exchange.body === null || Array.isArray(exchange.body))
      return sendAwsError(exchange.res, {
        status: 400,
        type: 'ValidationException',
        message: 'Malformed input request, please reformat your input and try again.',
      });
    const model = resolveModel(decodeURIComponent(rawModel));
    if ('status' in model) return sendAwsError(exchange.res, model);
    const refused = requestRefusal(model, exchange.body as Record<string, unknown>);
    if (refused !== undefined) return sendAwsError(exchange.res, refused);
    await answer(context, exchange, decodeURIComponent(rawModel), action === 'converse-stream');
  },
};
