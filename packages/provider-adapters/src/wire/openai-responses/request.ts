/**
 * A Responses client's body for an upstream that speaks Responses itself (OpenAI, Azure v1): the
 * body as sent, unknown fields, items and tools included, with the gateway's edits only: the
 * upstream's model id, and the gateway's effort and tier (it decided them and charges by them,
 * so the client's `reasoning.effort` and `service_tier` were inputs to that decision). Other
 * `reasoning` fields (`summary`) stay.
 */
import { AdapterRequestError, type BuildInput } from '../../adapter.ts';
import { isJsonObject, type JsonObject } from '../../json.ts';

export function responsesBody(input: BuildInput, source: JsonObject, model: string): JsonObject {
  const body: JsonObject = { ...source, model };
  const reasoning: JsonObject = isJsonObject(source.reasoning) ? { ...source.reasoning } : {};
  delete reasoning.effort;
  if (input.reasoning.kind === 'openai') reasoning.effort = input.reasoning.value;
  else if (input.reasoning.kind !== 'omit')
    throw new AdapterRequestError(
      `effort of kind '${input.reasoning.kind}' cannot be sent to an OpenAI-API upstream`,
    );
  if (Object.keys(reasoning).length > 0) body.reasoning = reasoning;
  else delete body.reasoning;
  delete body.service_tier;
  if (input.tier === 'flex') body.service_tier = 'flex';
  if (source.stream !== true) {
    delete body.stream;
    delete body.stream_options;
  }
  return body;
}
