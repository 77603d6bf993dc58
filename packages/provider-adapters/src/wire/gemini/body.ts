/**
 * The generateContent body both Gemini adapters send: encoded from the internal model, or,
 * when the client itself spoke Gemini, the client's body with only the gateway's edits (the
 * model goes in the URL; the effort; the tier, which each service switches its own way).
 */
import { AdapterRequestError, type BuildInput } from '../../adapter.ts';
import type { JsonObject } from '../../json.ts';
import { encodeGenerateContent } from './request.ts';
import { applyThinking } from './thinking.ts';
import { GEMINI_API, type GeminiDialect } from './types.ts';

export interface GenerateContentCall {
  /** Without the tier: each service sets it (a body field, or a header). */
  readonly body: JsonObject;
  readonly stream: boolean;
}

function fromSource(input: BuildInput, source: JsonObject): JsonObject {
  if (!input.offer.tiers.includes(input.tier))
    throw new AdapterRequestError(`This model is not offered on the ${input.tier} tier here.`);
  // The tier is the gateway's decision (the client's was an input to it); the model is the URL's.
  const { model: _model, serviceTier: _tier, ...body } = source;
  applyThinking(body, input.reasoning);
  return body;
}

export function generateContentCall(input: BuildInput, dialect: GeminiDialect): GenerateContentCall {
  const { source } = input;
  if (source?.api === GEMINI_API)
    return { body: fromSource(input, source.body), stream: source.stream === true };
  return { body: { ...encodeGenerateContent(input, dialect) }, stream: input.request.stream };
}
