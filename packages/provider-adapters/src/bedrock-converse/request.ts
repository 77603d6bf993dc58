/** The internal model request as a Bedrock Converse (or ConverseStream) HTTP request. */
import { AdapterRequestError, type BuildInput, type UpstreamHttpRequest } from '../adapter.ts';
import type {
  FunctionTool,
  ModelRequest,
  ResponseFormat,
  ToolChoice as ModelToolChoice,
} from '../model/request.ts';
import { cachePoint, converseMessages, systemBlocks } from './content.ts';
import { reasoningPlan } from './reasoning.ts';
import type { ConverseRequest, InferenceConfig, ToolChoice, ToolConfig, ToolEntry } from './wire.ts';

function functionTools(request: ModelRequest): FunctionTool[] {
  return request.tools.map((tool) => {
    // Bedrock accepts only client tools for Claude: Anthropic's web search is not offered there.
    if (tool.type === 'web_search')
      throw new AdapterRequestError('web search is not available on this provider');
    return tool;
  });
}

function toolEntries(tools: readonly FunctionTool[]): ToolEntry[] {
  const entries: ToolEntry[] = [];
  for (const tool of tools) {
    const spec = {
      name: tool.name,
      ...(tool.description === undefined || tool.description === '' ? {} : { description: tool.description }),
      inputSchema: { json: tool.parameters },
    };
    entries.push({ toolSpec: spec });
    if (tool.cache !== undefined) entries.push(cachePoint(tool.cache));
  }
  return entries;
}

/** Claude with thinking on refuses a forced tool (`any`/`tool`): it may only choose. */
function toolChoice(choice: ModelToolChoice | undefined, thinking: boolean): ToolChoice | undefined {
  if (choice === undefined || choice.type === 'none') return undefined;
  if (choice.type === 'auto' || thinking) return { auto: {} };
  return choice.type === 'required' ? { any: {} } : { tool: { name: choice.name } };
}

function hasToolBlocks(request: ModelRequest): boolean {
  return request.turns.some((turn) =>
    turn.content.some((part) => part.type === 'tool_call' || part.type === 'tool_result'),
  );
}

/**
 * Converse has no `none` choice. Without tools the model cannot call one, so tools are left
 * out; but Bedrock refuses toolUse/toolResult blocks in the conversation unless a toolConfig is
 * present, so with those the tools stay and only the choice is dropped.
 */
function toolConfig(request: ModelRequest, thinking: boolean): ToolConfig | undefined {
  const tools = functionTools(request);
  if (tools.length === 0) return undefined;
  if (request.toolChoice?.type === 'none' && !hasToolBlocks(request)) return undefined;
  const choice = toolChoice(request.toolChoice, thinking);
  return { tools: toolEntries(tools), ...(choice === undefined ? {} : { toolChoice: choice }) };
}

function inferenceConfig(
  request: ModelRequest,
  maxTokens: number,
  thinking: boolean,
  fixedSampling: boolean,
): InferenceConfig {
  const config: InferenceConfig = { maxTokens };
  // Claude refuses sampling changes while thinking, and some models (fixedSampling) always.
  const sampling = !thinking && !fixedSampling;
  if (sampling && request.temperature !== undefined) config.temperature = request.temperature;
  if (sampling && request.topP !== undefined) config.topP = request.topP;
  if (request.stop !== undefined && request.stop.length > 0) config.stopSequences = request.stop;
  return config;
}

/** Only a JSON schema has a Converse form; `json_object` has none and is left to the prompt. */
function outputConfig(format: ResponseFormat | undefined): ConverseRequest['outputConfig'] {
  if (format?.type !== 'json_schema') return undefined;
  const jsonSchema = { schema: JSON.stringify(format.schema), name: format.name };
  return { textFormat: { type: 'json_schema', structure: { jsonSchema } } };
}

export function converseBody(input: BuildInput): ConverseRequest {
  const { request, offer } = input;
  const limit = Math.min(request.maxOutputTokens ?? offer.defaultMaxOutputTokens, offer.maxOutputTokens);
  const plan = reasoningPlan(input.reasoning, limit);
  const body: ConverseRequest = {
    messages: converseMessages(request.turns),
    inferenceConfig: inferenceConfig(request, plan.maxTokens, plan.thinking, offer.fixedSampling === true),
  };
  const system = systemBlocks(request.system);
  if (system.length > 0) body.system = system;
  const tools = toolConfig(request, plan.thinking);
  if (tools !== undefined) body.toolConfig = tools;
  if (Object.keys(plan.fields).length > 0) body.additionalModelRequestFields = plan.fields;
  const output = outputConfig(request.responseFormat);
  if (output !== undefined) body.outputConfig = output;
  if (input.tier === 'flex') body.serviceTier = { type: 'flex' };
  return body;
}

export function buildConverseRequest(input: BuildInput): UpstreamHttpRequest {
  const body = converseBody(input);
  const action = input.request.stream ? 'converse-stream' : 'converse';
  // One path segment: `:` in a version suffix or `/` in an ARN must not split it.
  const model = encodeURIComponent(input.offer.upstreamModel);
  return {
    method: 'POST',
    url: `${input.endpoint.baseUrl}/model/${model}/${action}`,
    headers: {
      'content-type': 'application/json',
      accept: input.request.stream ? 'application/vnd.amazon.eventstream' : 'application/json',
    },
    body: JSON.stringify(body),
  };
}
