/**
 * A Messages request body from a BuildInput: encoded from the internal model, or, when the
 * client itself spoke Messages, the client's body with only the gateway's edits.
 */
import type { BuildInput } from '../../adapter.ts';
import { type JsonObject } from '../../json.ts';
import { applyEffort, outputLimit } from './effort.ts';
import { encodeToolChoice, encodeTools, encodeTurns, textBlock } from './encode-content.ts';
import { ANTHROPIC_API, type MessagesBody } from './types.ts';

export interface EncodedMessages {
  /** The body, with `model`; Vertex moves the model to the URL. */
  readonly body: JsonObject;
  /** `anthropic-beta` values, sent as a header rather than in the body. */
  readonly betas: readonly string[];
  readonly stream: boolean;
}

/** Anthropic's structured output; JSON mode without a schema has no equivalent and is not sent. */
function outputFormat(input: BuildInput): JsonObject | undefined {
  const format = input.request.responseFormat;
  return format?.type === 'json_schema'
    ? { format: { type: 'json_schema', schema: format.schema } }
    : undefined;
}

function fromModel(input: BuildInput): JsonObject {
  const { request, offer } = input;
  const body: MessagesBody = {
    model: offer.upstreamModel,
    max_tokens: outputLimit(request.maxOutputTokens, offer),
    messages: encodeTurns(request.turns),
  };
  if (request.system.length > 0) body.system = request.system.map(textBlock);
  if (request.tools.length > 0) {
    body.tools = encodeTools(request.tools, offer);
    const choice = encodeToolChoice(request.toolChoice, request.parallelToolCalls);
    if (choice !== undefined) body.tool_choice = choice;
  }
  if (request.stop !== undefined && request.stop.length > 0) body.stop_sequences = [...request.stop];
  // Recent Claude models refuse temperature and top_p together; temperature is the one kept.
  if (request.temperature !== undefined) body.temperature = request.temperature;
  else if (request.topP !== undefined) body.top_p = request.topP;
  if (request.user !== undefined) body.metadata = { user_id: request.user };
  const format = outputFormat(input);
  if (format !== undefined) body.output_config = format;
  if (request.stream) body.stream = true;
  return { ...body };
}

/** The client's body, unknown fields included, with the model id and stream flag set. */
function fromSource(
  input: BuildInput,
  source: JsonObject,
  headerBetas: readonly string[],
): { body: JsonObject; betas: string[] } {
  const { betas, ...rest } = source;
  // Read from the body, not `input.request`: a passthrough never decodes what it forwards.
  const body: JsonObject = { ...rest, model: input.offer.upstreamModel };
  if (source.stream !== true) delete body.stream;
  const list = Array.isArray(betas) ? betas.filter((beta): beta is string => typeof beta === 'string') : [];
  return { body, betas: [...new Set([...headerBetas, ...list])] };
}

export function encodeMessagesRequest(input: BuildInput): EncodedMessages {
  const source = input.source?.api === ANTHROPIC_API ? input.source.body : undefined;
  const { body, betas } =
    source === undefined
      ? { body: fromModel(input), betas: [] }
      : fromSource(input, source, input.source?.betas ?? []);
  applyEffort(body, {
    offer: input.offer,
    reasoning: input.reasoning,
    tier: input.tier,
    requestedMaxTokens: source === undefined ? input.request.maxOutputTokens : undefined,
  });
  return { body, betas, stream: body.stream === true };
}
