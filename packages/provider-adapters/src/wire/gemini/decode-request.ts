/**
 * A Gemini `generateContent` request -> the internal model, for upstreams of another API (a
 * Gemini upstream gets the client's body as sent). Whether it streams is the URL's method,
 * not the body's, so the caller says. `thinkingConfig` is not part of the model: the front
 * door reads it as the client's effort (`thinkingEffort`). Sampling knobs no other API shares
 * (`topK`, `seed`, penalties) and Google's own settings (`safetySettings`, `labels`) are left
 * out, as the other decoders leave out theirs; what would change the answer's meaning (more
 * candidates, audio or image output, a Gemini cached content) is refused.
 */
import { isJsonObject, type JsonObject } from '../../json.ts';
import type { ModelRequest } from '../../model/request.ts';
import { decodeContents, decodeSystem } from './decode-contents.ts';
import { GeminiDecodeError } from './decode-error.ts';
import { decodeResponseFormat, decodeToolChoice, decodeTools } from './decode-tools.ts';
import { thinkingEffort } from './thinking.ts';

export interface GeminiDecodeOptions {
  /** `:streamGenerateContent` (true) or `:generateContent` (false). */
  readonly stream: boolean;
}

function refuseGeminiOnly(body: JsonObject, config: JsonObject): void {
  if (body.cachedContent !== undefined)
    throw new GeminiDecodeError('cachedContent names a Gemini cache and cannot be sent to this provider.');
  if (typeof config.candidateCount === 'number' && config.candidateCount > 1)
    throw new GeminiDecodeError('candidateCount above 1 cannot be sent to this provider.');
  const modalities = Array.isArray(config.responseModalities) ? config.responseModalities : [];
  if (modalities.some((modality) => String(modality).toUpperCase() !== 'TEXT'))
    throw new GeminiDecodeError('only TEXT responseModalities can be sent to this provider.');
  for (const key of ['speechConfig', 'imageConfig'])
    if (config[key] !== undefined)
      throw new GeminiDecodeError(`generationConfig.${key} cannot be sent to this provider.`);
}

function sampling(config: JsonObject): Partial<ModelRequest> {
  const stop = Array.isArray(config.stopSequences)
    ? config.stopSequences.filter((item): item is string => typeof item === 'string')
    : [];
  return {
    ...(typeof config.maxOutputTokens === 'number' ? { maxOutputTokens: config.maxOutputTokens } : {}),
    ...(typeof config.temperature === 'number' ? { temperature: config.temperature } : {}),
    ...(typeof config.topP === 'number' ? { topP: config.topP } : {}),
    ...(stop.length > 0 ? { stop } : {}),
  };
}

export function decodeGenerateContentRequest(body: JsonObject, options: GeminiDecodeOptions): ModelRequest {
  const config = isJsonObject(body.generationConfig) ? body.generationConfig : {};
  refuseGeminiOnly(body, config);
  // Validated here too, so a translated request refuses what Google would refuse.
  thinkingEffort(body);
  const toolChoice = decodeToolChoice(body.toolConfig);
  const responseFormat = decodeResponseFormat(config);
  return {
    system: decodeSystem(body.systemInstruction),
    turns: decodeContents(body.contents),
    tools: decodeTools(body.tools),
    ...(toolChoice === undefined ? {} : { toolChoice }),
    ...sampling(config),
    ...(responseFormat === undefined ? {} : { responseFormat }),
    stream: options.stream,
  };
}
