/**
 * `X-Gateway-Applied` goes on every response of the chat route, errors included, with the keys
 * decided before the request ended, and `X-Gateway-Attempts` once a call went upstream. Each
 * stage records what it decided in the request's CallContext; one onSend hook writes the
 * headers, so no error path can forget them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  APPLIED_HEADER,
  COMPRESSION_HEADER,
  type CompressionReport,
  formatApplied,
  formatCompression,
  formatIgnored,
  IGNORED_HEADER,
} from './applied-header.ts';
import { ATTEMPTS_HEADER, attemptsValue } from './attempts-header.ts';
import { type AppliedState, callContext } from './call-context.ts';

export type { AppliedState } from './call-context.ts';

/** What the request decided so far for its headers (kept on its CallContext). */
export function appliedState(request: FastifyRequest): AppliedState {
  return callContext(request).applied;
}

/**
 * Records what compression did. A fallback (past the work budget) means the prompt went as
 * sent, so the options say compression=off; call again after replacing the options.
 */
export function noteCompression(applied: AppliedState, report: CompressionReport | undefined): void {
  applied.compression = report;
  if (report !== undefined && 'fallback' in report && applied.options)
    applied.options = { ...applied.options, compression: 'off' };
}

/**
 * Serialised headers by decision: a handful of combinations recur on every request, and the
 * RFC 8941 serialiser costs tens of microseconds on the hot path. Bounded: the catalog's
 * models x providers x options, plus a cap against anything unexpected.
 */
const formatted = new Map<string, string>();
const MAX_FORMATTED = 10_000;

function appliedValue(state: AppliedState): string {
  const options = state.options ?? {};
  const key = `${state.model}|${state.provider}|${options.effort}|${options.tier}|${options.compression}`;
  let value = formatted.get(key);
  if (value === undefined) {
    value = formatApplied(state);
    if (formatted.size >= MAX_FORMATTED) formatted.clear();
    formatted.set(key, value);
  }
  return value;
}

export function writeAppliedHeaders(request: FastifyRequest, reply: FastifyReply): void {
  const context = request.gatewayCall;
  const state = context?.applied ?? {};
  reply.header(APPLIED_HEADER, appliedValue(state));
  if (context && context.attempts.length > 0) reply.header(ATTEMPTS_HEADER, attemptsValue(context.attempts));
  const ignored = state.ignored ? formatIgnored(state.ignored) : undefined;
  if (ignored !== undefined) reply.header(IGNORED_HEADER, ignored);
  if (state.compression) reply.header(COMPRESSION_HEADER, formatCompression(state.compression));
  if (state.lifecycle) reply.headers(state.lifecycle);
}

/** onSend hook of the chat route; callback style, so no promise per response. */
export function appliedHeadersHook(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: null, payload: unknown) => void,
): void {
  writeAppliedHeaders(request, reply);
  done(null, payload);
}
