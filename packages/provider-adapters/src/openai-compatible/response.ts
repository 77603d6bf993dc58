import { AdapterParseError, type ParsedCompletion, type ResponseContext } from '../adapter.ts';
import { type ChatCompletion, isJsonObject } from '../openai-types.ts';
import { tokenUsageFromOpenAI } from '../usage.ts';

/** A 2xx body: the completion as the upstream sent it, reporting the gateway's model name. */
export function parseOpenAIResponse(body: string, context: ResponseContext): ParsedCompletion {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new AdapterParseError('the provider answered with a body that is not JSON');
  }
  if (!isJsonObject(parsed) || !Array.isArray(parsed.choices)) {
    throw new AdapterParseError('the provider answered without a choices array');
  }
  const completion = { ...parsed, model: context.model } as ChatCompletion;
  return { completion, usage: tokenUsageFromOpenAI(parsed.usage) };
}
