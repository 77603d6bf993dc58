/**
 * `X-Gateway-Applied` goes on every response of the chat route, errors included, with the keys
 * decided before the request ended. Each stage records what it decided in the request's state;
 * one onSend hook writes the headers, so no error path can forget them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderId } from '../contracts.ts';
import {
  APPLIED_HEADER,
  type AppliedOptions,
  COMPRESSION_HEADER,
  formatApplied,
  formatCompression,
  formatIgnored,
  IGNORED_HEADER,
} from './applied-header.ts';

export interface AppliedState {
  model?: string;
  provider?: ProviderId;
  options?: AppliedOptions;
  ignored?: readonly string[];
  /** Token counts of a compressed prompt, before and after (X-Gateway-Compression). */
  compression?: { readonly before: number; readonly after: number };
  /** Deprecation, Sunset and Link of a model whose end is announced (RoutePlan.lifecycleHeaders). */
  lifecycle?: Readonly<Record<string, string>> | undefined;
}

const states = new WeakMap<FastifyRequest, AppliedState>();

export function appliedState(request: FastifyRequest): AppliedState {
  let state = states.get(request);
  if (!state) {
    state = {};
    states.set(request, state);
  }
  return state;
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
  const state = states.get(request) ?? {};
  reply.header(APPLIED_HEADER, appliedValue(state));
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
