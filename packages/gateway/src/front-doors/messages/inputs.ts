/**
 * What the gateway reads from a Messages request besides the model name: the API version, the
 * `anthropic-beta` values, the effort a client puts in its body, the capabilities the request
 * needs, and what it may cost before the call (prompt estimate and output limit).
 */
import { anthropicMessages, type ModelRequest } from '@app/provider-adapters';
import type { FastifyRequest } from 'fastify';
import type { RoutePlan } from '../../contracts.ts';
import { gatewayErrors } from '../../errors.ts';
import { appliedState } from '../../pipeline/applied.ts';
import { CHARS_PER_TOKEN } from '../../pipeline/estimate.ts';
import type { ClientRequest } from '../../pipeline/prepare-call.ts';
import type { UpstreamCall } from '../../pipeline/upstream-call.ts';
import type { CountTokensRequestBody, MessagesRequestBody } from './request-schema.ts';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** The API versions Anthropic accepts today: the SDK 1.x one and the one older clients send. */
export const ANTHROPIC_VERSIONS = ['2023-06-01', '2026-10-21'] as const;

/** Tokens per message for the chat template (role markers), as for Chat Completions. */
const PER_MESSAGE_TOKENS = 4;

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/** An absent version is taken as 2023-06-01 (curl users forget it); another one is refused. */
export function checkVersion(headers: Headers): void {
  const version = single(headers['anthropic-version']);
  if (version === undefined || (ANTHROPIC_VERSIONS as readonly string[]).includes(version.trim())) return;
  throw gatewayErrors.create(
    'invalid_request',
    {
      reason: `anthropic-version '${version}' is not supported; send ${ANTHROPIC_VERSIONS.join(' or ')}.`,
    },
    { param: 'anthropic-version' },
  );
}

/** `anthropic-beta: a,b` (possibly repeated) as a list without duplicates. */
export function betasOf(headers: Headers): string[] {
  const raw = single(headers['anthropic-beta']) ?? '';
  return [...new Set(raw.split(',').map((beta) => beta.trim()))].filter((beta) => beta !== '');
}

/**
 * Betas reach an upstream of Anthropic's API with the body; one of another API cannot take
 * them, so they are reported in X-Gateway-Ignored instead of vanishing.
 */
export function reportUnsentBetas(
  request: FastifyRequest,
  call: UpstreamCall,
  betas: readonly string[],
): void {
  if (betas.length === 0 || call.init.adapter.wireApi === anthropicMessages.ANTHROPIC_API) return;
  const applied = appliedState(request);
  const entry = `anthropic-beta=${betas.join(',')}`;
  // Once per request, whichever attempt (of several, after a failover) reports it.
  if (!applied.ignored?.includes(entry)) applied.ignored = [...(applied.ignored ?? []), entry];
}

type Body = MessagesRequestBody | CountTokensRequestBody;

/**
 * Claude Code sends `output_config.effort` for every model. It counts as a header input (an
 * X-Gateway-Effort header wins, a model name modifier wins over both), so a value the model
 * cannot use is ignored and reported in X-Gateway-Ignored instead of failing upstream.
 */
export function routingHeaders(headers: Headers, body: Body): Headers {
  const effort = body.output_config?.effort;
  if (typeof effort !== 'string' || headers['x-gateway-effort'] !== undefined) return headers;
  return { ...headers, 'x-gateway-effort': effort };
}

function isServerTool(tool: { readonly type?: unknown }): boolean {
  return typeof tool.type === 'string' && tool.type !== 'custom';
}

export function needsOf(body: Body): { tools: boolean; webSearch: boolean } {
  const tools = body.tools ?? [];
  return {
    tools: tools.some((tool) => !isServerTool(tool)),
    webSearch: tools.some((tool) => typeof tool.type === 'string' && tool.type.startsWith('web_search_')),
  };
}

function chars(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'string') return value.length;
  if (!Array.isArray(value)) return JSON.stringify(value).length;
  let total = 0;
  for (const block of value as unknown[]) {
    const text = (block as { text?: unknown } | null)?.text;
    total += typeof text === 'string' ? text.length : JSON.stringify(block).length;
  }
  return total;
}

/** A tokenizer-free estimate of the prompt: about four characters per token. */
export function estimatePromptTokens(body: Body): number {
  let total = chars(body.system);
  for (const message of body.messages) total += chars(message.content);
  if (body.tools) total += JSON.stringify(body.tools).length;
  return Math.ceil(total / CHARS_PER_TOKEN) + PER_MESSAGE_TOKENS * body.messages.length;
}

/** The most output the request can make the upstream bill: max_tokens, capped by the model's. */
export function maxOutputTokens(body: MessagesRequestBody, plan: RoutePlan): number {
  return Math.min(body.max_tokens, plan.maxOutputTokens);
}

/**
 * The body as sent (an Anthropic-API upstream forwards it, betas included) plus the internal
 * model, decoded only when an upstream of another API asks for it.
 */
export function messagesSource(body: Body, betas: readonly string[]): ClientRequest {
  let decoded: ModelRequest | undefined;
  return {
    source: { api: 'anthropic-messages', body, betas },
    decode: () => (decoded ??= anthropicMessages.decodeMessagesRequest(body)),
  };
}
