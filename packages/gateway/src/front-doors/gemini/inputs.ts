/**
 * What the gateway reads from a Gemini request besides the model in the path: the effort a
 * client puts in `thinkingConfig`, the capabilities the request needs, and what it may cost
 * before the call (prompt estimate and output limit).
 */
import {
  AdapterRequestError,
  gemini,
  isJsonObject,
  type JsonObject,
  type ModelRequest,
} from '@app/provider-adapters';
import type { RoutePlan } from '../../contracts.ts';
import { gatewayErrors } from '../../errors.ts';
import { CHARS_PER_TOKEN } from '../../pipeline/estimate.ts';
import type { ClientRequest } from '../../pipeline/prepare-call.ts';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** A Gemini body as the codec takes it (the route schema checked what the gateway reads). */
export function bodyOf(body: unknown): JsonObject {
  return body as JsonObject;
}

function refused(run: () => string | undefined): string | undefined {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof AdapterRequestError)) throw error;
    throw gatewayErrors.create(
      'invalid_request',
      { reason: error.message },
      { param: 'generationConfig.thinkingConfig' },
    );
  }
}

/**
 * `thinkingConfig` (a budget or a level) counts as a header input, as `reasoning.effort` does on
 * the other front doors: an X-Gateway-Effort header wins, a model name modifier wins over both,
 * and a value the model cannot use is ignored and reported in X-Gateway-Ignored.
 */
export function routingHeaders(headers: Headers, body: JsonObject): Headers {
  const effort = refused(() => gemini.thinkingEffort(body));
  if (effort === undefined || headers['x-gateway-effort'] !== undefined) return headers;
  return { ...headers, 'x-gateway-effort': effort };
}

function toolsOf(body: JsonObject): JsonObject[] {
  return Array.isArray(body.tools) ? body.tools.filter(isJsonObject) : [];
}

export function needsOf(body: JsonObject): { tools: boolean; webSearch: boolean } {
  const tools = toolsOf(body);
  return {
    tools: tools.some(
      (tool) => Array.isArray(tool.functionDeclarations) && tool.functionDeclarations.length > 0,
    ),
    webSearch: tools.some(
      (tool) => tool.googleSearch !== undefined || tool.googleSearchRetrieval !== undefined,
    ),
  };
}

/** A tokenizer-free estimate of the prompt: about four characters per token. */
export function estimatePromptTokens(body: JsonObject): number {
  let chars = JSON.stringify(body.contents ?? []).length;
  if (body.systemInstruction !== undefined) chars += JSON.stringify(body.systemInstruction).length;
  if (body.tools !== undefined) chars += JSON.stringify(body.tools).length;
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** The most output the request can make the upstream bill: maxOutputTokens, capped by the model's. */
export function maxOutputTokens(body: JsonObject, plan: RoutePlan): number {
  const config = isJsonObject(body.generationConfig) ? body.generationConfig : {};
  const asked = typeof config.maxOutputTokens === 'number' ? config.maxOutputTokens : plan.maxOutputTokens;
  return Math.min(asked, plan.maxOutputTokens);
}

/**
 * The body as sent (a Gemini-API upstream forwards it; whether it streams is the URL's method)
 * plus the internal model, decoded only when an upstream of another API asks for it.
 */
export function geminiSource(body: JsonObject, stream: boolean): ClientRequest {
  let decoded: ModelRequest | undefined;
  return {
    source: { api: gemini.GEMINI_API, body, stream },
    decode: () => (decoded ??= gemini.decodeGenerateContentRequest(body, { stream })),
  };
}
