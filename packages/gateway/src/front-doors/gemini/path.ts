/**
 * The paths of Gemini's API: `/{version}/models/{model}:{method}`. The model keeps the gateway's
 * grammar (`<base>[:<modifier>]...[@<provider>]`), so it may itself contain `:` and `@`: the
 * method is the text after the LAST `:` and must be one the gateway serves. Pure functions.
 */
import { gatewayErrors } from '../../errors.ts';

/** Google's two API versions; the gateway serves the same routes under both. */
export const GEMINI_VERSIONS = ['v1beta', 'v1'] as const;
export type GeminiVersion = (typeof GEMINI_VERSIONS)[number];

export const GEMINI_METHODS = ['generateContent', 'streamGenerateContent', 'countTokens'] as const;
export type GeminiMethod = (typeof GEMINI_METHODS)[number];

export interface ModelCall {
  /** The model as the gateway resolves it: `gemini-2.5-flash:high@cloud_b`. */
  readonly model: string;
  readonly method: GeminiMethod;
}

/** How a stream is framed: `?alt=sse` is server-sent events, anything else Google's JSON array. */
export type StreamFraming = 'sse' | 'json-array';

const MODELS_PREFIX = 'models/';
const METHOD_LIST = GEMINI_METHODS.join(', ');

function isMethod(text: string): text is GeminiMethod {
  return (GEMINI_METHODS as readonly string[]).includes(text);
}

function unknownRoute(path: string, hint: string) {
  return gatewayErrors.create('not_found', { method: 'POST', path, hint });
}

/** Clients may percent-encode the model's `:` and `@` (`%3A`, `%40`). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw gatewayErrors.create('invalid_request', {
      reason: `The path segment '${segment}' has a malformed percent-escape.`,
    });
  }
}

/**
 * `tail` is the raw path after `/{version}/models/` (no query string): `gemini-2.5-flash:high@cloud_b:generateContent`
 * -> model `gemini-2.5-flash:high@cloud_b`, method `generateContent`. A doubled `models/`
 * (an SDK given `models/<id>` that adds the prefix again) is taken once. `path` is the request's
 * path, for the 404's message.
 */
export function parseModelCall(tail: string, path: string): ModelCall {
  let text = decoded(tail);
  if (text.startsWith(MODELS_PREFIX)) text = text.slice(MODELS_PREFIX.length);
  const colon = text.lastIndexOf(':');
  if (colon < 0)
    throw unknownRoute(path, `Name a method after the model: {model}:{method}, one of ${METHOD_LIST}.`);
  const model = text.slice(0, colon);
  const method = text.slice(colon + 1);
  if (!isMethod(method))
    throw unknownRoute(
      path,
      `'${method}' is not a method the gateway serves (${METHOD_LIST}); model modifiers come before the method, e.g. gemini-2.5-flash:high:generateContent.`,
    );
  if (model === '' || model.includes('/'))
    throw gatewayErrors.create(
      'invalid_request',
      { reason: `'${model}' is not a model name: send {model}:${method} with a name as in GET /v1/models.` },
      { param: 'model' },
    );
  return { model, method };
}

/** `alt=sse` streams server-sent events; absent or `json` streams one JSON array. */
export function streamFraming(alt: string | undefined): StreamFraming {
  if (alt === undefined || alt === 'json') return 'json-array';
  if (alt === 'sse') return 'sse';
  throw gatewayErrors.create(
    'invalid_request',
    { reason: `Unsupported value '${alt}' for alt; send alt=sse or alt=json.` },
    { param: 'alt' },
  );
}

/** The `name` of a model in Gemini's shape, and the id in a name a client sends back. */
export function resourceName(id: string): string {
  return `${MODELS_PREFIX}${id}`;
}

export function idOfResource(name: string): string {
  return name.startsWith(MODELS_PREFIX) ? name.slice(MODELS_PREFIX.length) : name;
}

/** The call a request's URL names: `/{version}/models/{tail}` (see parseModelCall). */
export function modelCallOfUrl(url: string): ModelCall {
  const path = url.split('?', 1)[0] ?? '';
  const version = GEMINI_VERSIONS.find((name) => path.startsWith(`/${name}/models/`));
  return parseModelCall(version ? path.slice(`/${version}/models/`.length) : '', path);
}
