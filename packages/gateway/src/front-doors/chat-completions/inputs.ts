/**
 * What the gateway reads from a chat request besides the model name: option inputs that
 * OpenAI clients put in the body, the capabilities the request needs, and how the client
 * wants its stream.
 */
import type { ChatRequestBody } from './request-schema.ts';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** OpenAI's tier names for the standard tier. */
const STANDARD_TIERS = new Set(['default', 'auto', 'standard']);

/**
 * OpenAI SDK users set `reasoning_effort` and `service_tier` in the body. They count as header
 * inputs (an X-Gateway-* header present wins; a model name modifier wins over both), so a value
 * the model cannot use is ignored and reported in X-Gateway-Ignored instead of failing upstream.
 */
export function routingHeaders(headers: Headers, body: ChatRequestBody): Headers {
  const effort = body.reasoning_effort;
  const tier = body.service_tier;
  const effortInput = typeof effort === 'string' && headers['x-gateway-effort'] === undefined;
  const tierInput = typeof tier === 'string' && headers['x-gateway-service-tier'] === undefined;
  if (!effortInput && !tierInput) return headers;
  const merged: Record<string, string | string[] | undefined> = { ...headers };
  if (effortInput) merged['x-gateway-effort'] = effort;
  if (tierInput) merged['x-gateway-service-tier'] = STANDARD_TIERS.has(tier) ? 'standard' : tier;
  return merged;
}

export function needsOf(body: ChatRequestBody): { tools: boolean; webSearch: boolean } {
  return { tools: (body.tools?.length ?? 0) > 0, webSearch: body.web_search_options !== undefined };
}

export function isStream(body: ChatRequestBody): boolean {
  return body.stream === true;
}

export function wantsUsage(body: ChatRequestBody): boolean {
  return body.stream_options?.include_usage === true;
}
