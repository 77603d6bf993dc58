/**
 * `/v1/models` is OpenAI's list and Google's too. Gemini clients say who they are: they send
 * the key as `x-goog-api-key` or `?key=`, and Google's SDKs add `x-goog-api-client`. Such a
 * request gets Gemini's shape; every other one OpenAI's, as before. A Fastify route constraint
 * makes the choice, so each shape stays a route of its own front door.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';

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

/** Routes declared with `constraints: { geminiClient: 'yes' }` answer Gemini clients only. */
export const geminiClientStrategy: ConstraintStrategy = {
  name: GEMINI_CLIENT,
  storage() {
    type Store = ReturnType<ReturnType<ConstraintStrategy['storage']>['get']>;
    const handlers = new Map<unknown, Store>();
    return {
      get: (value) => handlers.get(value) ?? null,
      set: (value, store) => {
        handlers.set(value, store);
      },
    };
  },
  // No value for other requests: only the unconstrained routes (OpenAI's) match them.
  deriveConstraint: (request) => (isGeminiClient(request.headers, request.url ?? '') ? YES : undefined),
  mustMatchWhenDerived: false,
};

export const GEMINI_CLIENT_CONSTRAINT = { [GEMINI_CLIENT]: YES } as const;
