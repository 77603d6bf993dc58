/**
 * The Fastify route constraints of the Gemini routes. `geminiClient`: `/v1/models` is OpenAI's
 * list and Google's too. Gemini clients say who they are: they send the key as `x-goog-api-key`
 * or `?key=`, and Google's SDKs add `x-goog-api-client`. Such a request gets Gemini's shape;
 * every other one OpenAI's, as before, and each shape stays a route of its own front door.
 * `geminiMethod`: one route per method of `{model}:{method}` (see index.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { GEMINI_METHODS, GEMINI_VERSIONS, type GeminiMethod } from './path.ts';

type ConstraintStrategy = Parameters<FastifyInstance['addConstraintStrategy']>[0];

/** True when the request comes from a Gemini client (see above). */
export function isGeminiClient(headers: IncomingHttpHeaders, url: string): boolean {
  if (headers['x-goog-api-key'] !== undefined || headers['x-goog-api-client'] !== undefined) return true;
  const query = url.indexOf('?');
  return query >= 0 && new URLSearchParams(url.slice(query + 1)).has('key');
}

export const GEMINI_CLIENT = 'geminiClient';

/** The constraint value of a Gemini client's request; other requests derive none. */
const YES = 'yes';

type Storage = ReturnType<ConstraintStrategy['storage']>;

function mapStorage(): Storage {
  const handlers = new Map<unknown, ReturnType<Storage['get']>>();
  return {
    get: (value) => handlers.get(value) ?? null,
    set: (value, store) => {
      handlers.set(value, store);
    },
  };
}

/** Routes declared with `constraints: { geminiClient: 'yes' }` answer Gemini clients only. */
export const geminiClientStrategy: ConstraintStrategy = {
  name: GEMINI_CLIENT,
  storage: mapStorage,
  // No value for other requests: only the unconstrained routes (OpenAI's) match them.
  deriveConstraint: (request) => (isGeminiClient(request.headers, request.url ?? '') ? YES : undefined),
  mustMatchWhenDerived: false,
};

export const GEMINI_CLIENT_CONSTRAINT = { [GEMINI_CLIENT]: YES } as const;

export const GEMINI_METHOD = 'geminiMethod';

/** The method of a `/{version}/models/{model}:{method}` path, if it is one the gateway serves. */
export function methodOfPath(url: string): GeminiMethod | undefined {
  const path = url.split('?', 1)[0] ?? '';
  if (!GEMINI_VERSIONS.some((version) => path.startsWith(`/${version}/models/`))) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  const method = decoded.slice(decoded.lastIndexOf(':') + 1);
  return (GEMINI_METHODS as readonly string[]).includes(method) ? (method as GeminiMethod) : undefined;
}

/**
 * Routes declared with `constraints: { geminiMethod: '<method>' }` take that method's calls, so
 * each method is an operation of its own in the OpenAPI document; any other text after the last
 * `:` reaches the unconstrained route, whose path parsing answers the 404.
 */
export const geminiMethodStrategy: ConstraintStrategy = {
  name: GEMINI_METHOD,
  storage: mapStorage,
  deriveConstraint: (request) => methodOfPath(request.url ?? ''),
  mustMatchWhenDerived: false,
};
