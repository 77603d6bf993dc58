/** A ModelRequest as a generateContent body (the same for the Gemini API and Vertex). */
import { AdapterRequestError, type BuildInput } from '../../adapter.ts';
import type { EffortExpression, OfferProfile } from '../../model/profile.ts';
import type { ModelRequest, Tool, ToolChoice, WebSearchTool } from '../../model/request.ts';
import { encodeContents } from './contents.ts';
import type {
  GeminiContent,
  GeminiDialect,
  GeminiGenerationConfig,
  GeminiRequestBody,
  GeminiThinkingConfig,
  GeminiTool,
  GeminiToolConfig,
} from './types.ts';

/** A Gemini client's own media URLs go back as it sent them: both services' schemes. */
const CLIENT_DIALECT: GeminiDialect = { fileUriSchemes: ['https', 'gs'], searchExcludeDomains: true };

/**
 * The conversation fields of a body: for an upstream body, and for a Gemini client's own body
 * re-encoded after compression (the default dialect then keeps the client's media URLs).
 */
export function encodeConversation(
  request: ModelRequest,
  dialect: GeminiDialect = CLIENT_DIALECT,
): Pick<GeminiRequestBody, 'contents' | 'systemInstruction'> {
  const contents: GeminiContent[] = encodeContents(request.turns, dialect);
  const system = request.system.map((part) => ({ text: part.text })).filter((part) => part.text !== '');
  return system.length > 0 ? { contents, systemInstruction: { parts: system } } : { contents };
}

/**
 * The body without the tier, which each service switches its own way. The client's `user`
 * is not sent: generateContent has no field for it and refuses unknown ones.
 */
export function encodeGenerateContent(input: BuildInput, dialect: GeminiDialect): GeminiRequestBody {
  const { request, offer } = input;
  if (!offer.tiers.includes(input.tier))
    throw new AdapterRequestError(`This model is not offered on the ${input.tier} tier here.`);
  const body: GeminiRequestBody = { ...encodeConversation(request, dialect) };
  const tools = encodeTools(request.tools, offer, dialect);
  if (tools.length > 0) body.tools = tools;
  const toolConfig = encodeToolConfig(request.toolChoice, request.tools);
  if (toolConfig) body.toolConfig = toolConfig;
  const generationConfig = encodeGenerationConfig(request, offer, input.reasoning);
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  return body;
}

function encodeTools(tools: readonly Tool[], offer: OfferProfile, dialect: GeminiDialect): GeminiTool[] {
  const declarations = tools.flatMap((tool) =>
    tool.type === 'function'
      ? [
          {
            name: tool.name,
            ...(tool.description === undefined ? {} : { description: tool.description }),
            parametersJsonSchema: tool.parameters,
          },
        ]
      : [],
  );
  const out: GeminiTool[] = declarations.length > 0 ? [{ functionDeclarations: declarations }] : [];
  const search = tools.find((tool): tool is WebSearchTool => tool.type === 'web_search');
  if (search) out.push(encodeSearch(search, offer, dialect));
  return out;
}

/** Search options Google has no field for (max uses, location, context size) are left to its defaults. */
function encodeSearch(tool: WebSearchTool, offer: OfferProfile, dialect: GeminiDialect): GeminiTool {
  if (offer.webSearchTool === undefined)
    throw new AdapterRequestError('Web search is not available for this model on this provider.');
  if (tool.allowedDomains !== undefined && tool.allowedDomains.length > 0)
    throw new AdapterRequestError('Google Search grounding cannot be restricted to a list of domains.');
  const blocked = tool.blockedDomains ?? [];
  if (blocked.length === 0) return { [offer.webSearchTool]: {} };
  if (!dialect.searchExcludeDomains)
    throw new AdapterRequestError('Google Search grounding on this provider cannot exclude domains.');
  return { [offer.webSearchTool]: { excludeDomains: [...blocked] } };
}

function encodeToolConfig(
  choice: ToolChoice | undefined,
  tools: readonly Tool[],
): GeminiToolConfig | undefined {
  if (choice === undefined || !tools.some((tool) => tool.type === 'function')) return undefined;
  switch (choice.type) {
    case 'auto':
      return { functionCallingConfig: { mode: 'AUTO' } };
    case 'none':
      return { functionCallingConfig: { mode: 'NONE' } };
    case 'required':
      return { functionCallingConfig: { mode: 'ANY' } };
    case 'tool':
      return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
  }
}

function encodeGenerationConfig(
  request: ModelRequest,
  offer: OfferProfile,
  reasoning: EffortExpression,
): GeminiGenerationConfig {
  const config: GeminiGenerationConfig = {};
  if (request.maxOutputTokens !== undefined)
    config.maxOutputTokens = Math.min(request.maxOutputTokens, offer.maxOutputTokens);
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.stop !== undefined && request.stop.length > 0) config.stopSequences = [...request.stop];
  const format = request.responseFormat;
  if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  if (format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = format.schema;
  }
  const thinking = thinkingConfig(reasoning);
  if (thinking) config.thinkingConfig = thinking;
  return config;
}

/** One of budget or level, never both: Google answers 400 to a body carrying the two. */
export function thinkingConfig(reasoning: EffortExpression): GeminiThinkingConfig | undefined {
  switch (reasoning.kind) {
    case 'gemini-budget':
      return { thinkingBudget: reasoning.budgetTokens };
    case 'gemini-level':
      return { thinkingLevel: reasoning.level };
    case 'omit':
      return undefined;
    default:
      // A catalog mistake, not the client's: it must surface as the gateway's own error.
      throw new Error(`The effort expression '${reasoning.kind}' is not one Gemini understands.`);
  }
}
