/**
 * What Bedrock refuses about a Converse request to Claude, as it answers: model ids that need
 * an inference profile, keys Claude does not know in `additionalModelRequestFields`, thinking
 * settings the model does not take, server tools, a flex tier, sampling changes while thinking.
 */
import type { AwsRefusal } from './bedrock-sigv4.ts';

export type ThinkingSupport = 'budget' | 'both' | 'adaptive';

export interface ClaudeModel {
  readonly thinking: ThinkingSupport;
  /** `output_config.effort` values it takes; empty: the field is refused. */
  readonly efforts: readonly string[];
}

const MODELS: Readonly<Record<string, ClaudeModel>> = {
  'anthropic.claude-opus-4-8': { thinking: 'adaptive', efforts: ['low', 'medium', 'high', 'xhigh', 'max'] },
  'anthropic.claude-opus-4-7': { thinking: 'adaptive', efforts: ['low', 'medium', 'high', 'xhigh', 'max'] },
  'anthropic.claude-sonnet-4-6': { thinking: 'both', efforts: ['low', 'medium', 'high', 'max'] },
  'anthropic.claude-sonnet-4-5-20250929-v1:0': { thinking: 'budget', efforts: [] },
  'anthropic.claude-haiku-4-5-20251001-v1:0': { thinking: 'budget', efforts: [] },
};
const PROFILE_PREFIXES = ['us', 'eu', 'global'];
const CLAUDE_KEYS = new Set(['thinking', 'output_config', 'anthropic_beta', 'top_k']);

type Body = Readonly<Record<string, unknown>>;

function object(value: unknown): Body | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Body) : undefined;
}

function invalid(message: string): AwsRefusal {
  return { status: 400, type: 'ValidationException', message };
}

/** The model behind an inference-profile id, or Bedrock's refusal of the id. */
export function resolveModel(modelId: string): ClaudeModel | AwsRefusal {
  const bare = MODELS[modelId];
  if (bare !== undefined) {
    return invalid(
      `Invocation of model ID ${modelId} with on-demand throughput isn’t supported. Retry your request with the ID or ARN of an inference profile that contains this model.`,
    );
  }
  const dot = modelId.indexOf('.');
  const model = MODELS[modelId.slice(dot + 1)];
  if (dot === -1 || !PROFILE_PREFIXES.includes(modelId.slice(0, dot)) || model === undefined)
    return invalid('The provided model identifier is invalid.');
  return model;
}

function thinkingRefusal(
  model: ClaudeModel,
  fields: Body,
  maxTokens: number | undefined,
): AwsRefusal | undefined {
  const thinking = object(fields.thinking);
  const type = thinking?.type;
  if (type === 'enabled' && model.thinking === 'adaptive')
    return invalid(
      'The model returned the following errors: thinking.type.enabled is not supported for this model. Use thinking.type.adaptive and output_config.effort to control thinking behavior.',
    );
  if (type === 'adaptive' && model.thinking === 'budget')
    return invalid(
      "The model returned the following errors: thinking.type: Input tag 'adaptive' found using 'type' does not match any of the expected tags: 'disabled', 'enabled'",
    );
  if (type === 'enabled') {
    const budget = thinking?.budget_tokens;
    if (typeof budget !== 'number' || budget < 1024)
      return invalid(
        'The model returned the following errors: thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
      );
    if (maxTokens !== undefined && budget >= maxTokens)
      return invalid(
        'The model returned the following errors: `max_tokens` must be greater than `thinking.budget_tokens`.',
      );
  }
  const effort = object(fields.output_config)?.effort;
  if (effort !== undefined && !model.efforts.includes(String(effort)))
    return invalid(
      `The model returned the following errors: output_config.effort: '${String(effort)}' is not supported by this model.`,
    );
  return undefined;
}

function toolsRefusal(body: Body, thinking: boolean): AwsRefusal | undefined {
  const config = object(body.toolConfig);
  const tools = Array.isArray(config?.tools) ? config.tools : [];
  for (const tool of tools) {
    const entry = object(tool) ?? {};
    const type = entry.type ?? object(entry.systemTool)?.name;
    if (typeof type === 'string' && type.startsWith('web_search'))
      return invalid(
        `The model returned the following errors: tools: Input tag '${type}' does not match any of the expected client tool types.`,
      );
    if (entry.toolSpec === undefined && entry.cachePoint === undefined)
      return invalid('The provided tool configuration is invalid.');
  }
  const choice = object(config?.toolChoice);
  if (thinking && (choice?.any !== undefined || choice?.tool !== undefined))
    return invalid(
      'The model returned the following errors: Thinking may not be enabled when tool_choice forces tool use.',
    );
  return undefined;
}

function messagesRefusal(body: Body): AwsRefusal | undefined {
  const messages = Array.isArray(body.messages) ? body.messages.map((m) => object(m) ?? {}) : [];
  if (messages.length === 0 || messages[0]?.role !== 'user')
    return invalid(
      'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
    );
  for (let i = 1; i < messages.length; i++) {
    if (messages[i]?.role === messages[i - 1]?.role)
      return invalid(
        'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.',
      );
  }
  const usesTools = messages.some((m) =>
    (Array.isArray(m.content) ? m.content : []).some((block) => {
      const b = object(block) ?? {};
      return b.toolUse !== undefined || b.toolResult !== undefined;
    }),
  );
  if (usesTools && body.toolConfig === undefined)
    return invalid('The toolConfig field must be defined when using toolUse and toolResult content blocks.');
  return undefined;
}

/** Undefined when Bedrock would accept the request for this model. */
export function requestRefusal(model: ClaudeModel, body: Body): AwsRefusal | undefined {
  const fields = object(body.additionalModelRequestFields) ?? {};
  const extra = Object.keys(fields).filter((key) => !CLAUDE_KEYS.has(key));
  if (extra.length > 0)
    return invalid(`The model returned the following errors: ${extra[0]}: Extra inputs are not permitted`);
  const inference = object(body.inferenceConfig) ?? {};
  const maxTokens = typeof inference.maxTokens === 'number' ? inference.maxTokens : undefined;
  const thinking = object(fields.thinking)?.type;
  const thinkingOn = thinking === 'enabled' || thinking === 'adaptive';
  const refused =
    thinkingRefusal(model, fields, maxTokens) ?? toolsRefusal(body, thinkingOn) ?? messagesRefusal(body);
  if (refused !== undefined) return refused;
  if (
    thinkingOn &&
    ((inference.temperature !== undefined && inference.temperature !== 1) ||
      Number(inference.topP ?? 1) < 0.95)
  )
    return invalid(
      'The model returned the following errors: `temperature` may only be set to 1 when thinking is enabled.',
    );
  if (object(body.serviceTier)?.type === 'flex')
    return invalid('The provided service tier is not supported for this model.');
  return undefined;
}
