/**
 * POST /v1/chat/completions, top to bottom: authenticate -> resolve model and options ->
 * select provider and reserve budget -> translate -> call upstream -> respond (JSON or SSE).
 * How the call ends (settle or release, router report) is decided by its CallOutcome.
 */
import { isAppError } from '@app/http-kit';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl, Ledger, Router } from '../../contracts.ts';
import { gatewayErrors } from '../../errors.ts';
import { appliedState } from '../../pipeline/applied.ts';
import { prepareCall } from '../../pipeline/prepare-call.ts';
import type { Upstream } from '../../upstream/index.ts';
import { chatSource } from './decode.ts';
import { choicesOf, estimatePromptTokens, maxOutputTokens } from './estimate.ts';
import { isStream, needsOf, routingHeaders, wantsUsage } from './inputs.ts';
import type { ChatRequestBody } from './request-schema.ts';
import { respondJson } from './respond-json.ts';
import { respondStream } from './respond-stream.ts';

export interface HandlerDeps {
  readonly access: AccessControl;
  readonly ledger: Ledger;
  readonly router: Router;
  readonly upstream: Upstream;
  readonly log: FastifyBaseLogger;
  /** Ledger writes and router reports still running after their response was sent. */
  readonly pending: Set<Promise<unknown>>;
  readonly onUsageAnomaly?: (provider: string) => void;
}

export function chatHandler(deps: HandlerDeps) {
  return async function chatCompletions(
    request: FastifyRequest,
    body: ChatRequestBody,
    reply: FastifyReply,
  ): Promise<unknown> {
    const applied = appliedState(request);

    const principal = await deps.access.authenticate(request);
    refuseTooManyChoices(body, deps.upstream.config.maxChoices);

    const plan = deps.router.resolve(body.model, routingHeaders(request.headers, body));
    applied.model = plan.model;
    applied.options = plan.options;
    applied.ignored = plan.ignored;

    const call = await prepareCall(deps, {
      request,
      reply,
      plan,
      principal,
      needs: needsOf(body),
      promptTokens: estimatePromptTokens(body),
      outputTokens: maxOutputTokens(body, plan),
      source: chatSource(body),
    });

    try {
      if (isStream(body)) {
        const options = {
          includeUsage: wantsUsage(body),
          keepAliveMs: deps.upstream.config.streamKeepAliveMs,
        };
        if (await respondStream(call, options)) return reply;
      } else {
        const completion = await respondJson(call, request);
        if (completion !== undefined) return completion;
      }
    } catch (error) {
      // Upstream failures arrive as AppErrors with the call already ended; anything else is a
      // fault of the gateway itself, and the budget goes back (a no-op once ended).
      if (!isAppError(error)) call.init.outcome.gatewayFault();
      throw error;
    }
    // The client has gone: there is no one to answer.
    reply.hijack();
    reply.raw.destroy();
    return undefined;
  };
}

/** Every completion asked for is reserved for; past the configured number, none is served. */
function refuseTooManyChoices(body: ChatRequestBody, max: number): void {
  if (choicesOf(body) <= max) return;
  const reason = `'n' is ${choicesOf(body)}; this gateway generates at most ${max} completions per request.`;
  throw gatewayErrors.create('invalid_request', { reason }, { param: 'n' });
}
