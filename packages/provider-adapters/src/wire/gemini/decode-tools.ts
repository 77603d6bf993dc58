/**
 * A Gemini client's tools, tool config and structured output -> the internal model. Schemas
 * come as JSON Schema (`parametersJsonSchema`, `responseJsonSchema`) or in Google's OpenAPI
 * subset (`parameters`, `responseSchema`: upper-case types, `nullable`), which is turned into
 * JSON Schema for the other APIs.
 */
import { isJsonObject, type JsonObject } from '../../json.ts';
import type { FunctionTool, ResponseFormat, Tool, ToolChoice } from '../../model/request.ts';
import { GeminiDecodeError } from './decode-error.ts';

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Google-only keys with no JSON Schema meaning. */
const DROPPED_SCHEMA_KEYS = new Set(['propertyOrdering', 'nullable']);

/** Google's Schema (OpenAPI 3.0 subset) as JSON Schema: lower-case types, `nullable` as a null type. */
export function jsonSchemaOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(jsonSchemaOf);
  if (!isJsonObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_SCHEMA_KEYS.has(key)) continue;
    if (key === 'type' && typeof value === 'string') out.type = value.toLowerCase();
    else if (key === 'properties' && isJsonObject(value))
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, jsonSchemaOf(sub)]),
      );
    else if (key === 'items' || key === 'anyOf') out[key] = jsonSchemaOf(value);
    else out[key] = value;
  }
  if (schema.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

function schemaOf(declaration: JsonObject): JsonObject {
  if (isJsonObject(declaration.parametersJsonSchema)) return declaration.parametersJsonSchema;
  const converted = jsonSchemaOf(declaration.parameters);
  // A function without parameters still takes an (empty) object in every other API.
  return isJsonObject(converted) ? converted : { type: 'object', properties: {} };
}

function functionTool(raw: unknown): FunctionTool {
  const declaration = isJsonObject(raw) ? raw : {};
  const name = str(declaration.name);
  if (name === undefined) throw new GeminiDecodeError('every function declaration needs a name.');
  const description = str(declaration.description);
  return {
    type: 'function',
    name,
    ...(description === undefined ? {} : { description }),
    parameters: schemaOf(declaration),
  };
}

function searchTool(raw: JsonObject): Tool {
  const excluded = Array.isArray(raw.excludeDomains)
    ? raw.excludeDomains.filter((domain): domain is string => typeof domain === 'string')
    : [];
  if (raw.timeRangeFilter !== undefined)
    throw new GeminiDecodeError('googleSearch.timeRangeFilter cannot be sent to this provider.');
  return { type: 'web_search', ...(excluded.length > 0 ? { blockedDomains: excluded } : {}) };
}

/** Gemini's other built-in tools exist only there. */
function toolsOf(raw: unknown): Tool[] {
  const spec = isJsonObject(raw) ? raw : {};
  const tools: Tool[] = [];
  for (const [key, value] of Object.entries(spec)) {
    if (key === 'functionDeclarations' && Array.isArray(value)) tools.push(...value.map(functionTool));
    else if (key === 'googleSearch' && isJsonObject(value)) tools.push(searchTool(value));
    else
      throw new GeminiDecodeError(
        `the tool '${key}' exists only on Gemini and cannot be sent to this provider.`,
      );
  }
  return tools;
}

export function decodeTools(raw: unknown): Tool[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new GeminiDecodeError('tools must be a list.');
  return raw.flatMap(toolsOf);
}

/** `toolConfig.functionCallingConfig`: AUTO, ANY (optionally one allowed function), NONE. */
export function decodeToolChoice(raw: unknown): ToolChoice | undefined {
  const config =
    isJsonObject(raw) && isJsonObject(raw.functionCallingConfig) ? raw.functionCallingConfig : {};
  const allowed = Array.isArray(config.allowedFunctionNames)
    ? config.allowedFunctionNames.filter((name): name is string => typeof name === 'string')
    : [];
  switch (config.mode ?? 'MODE_UNSPECIFIED') {
    case 'MODE_UNSPECIFIED':
      return undefined;
    case 'AUTO':
      return { type: 'auto' };
    case 'NONE':
      return { type: 'none' };
    case 'ANY': {
      if (allowed.length === 0) return { type: 'required' };
      const [only] = allowed;
      if (allowed.length === 1 && only !== undefined) return { type: 'tool', name: only };
      throw new GeminiDecodeError(
        'allowedFunctionNames can name one function only when the model is not Gemini.',
      );
    }
    default:
      throw new GeminiDecodeError(
        `functionCallingConfig.mode '${String(config.mode)}' cannot be sent to this provider; use AUTO, ANY or NONE.`,
      );
  }
}

/** `responseMimeType` with `responseJsonSchema` or `responseSchema` as a response format. */
export function decodeResponseFormat(config: JsonObject): ResponseFormat | undefined {
  const mime = str(config.responseMimeType);
  const schema = isJsonObject(config.responseJsonSchema)
    ? config.responseJsonSchema
    : jsonSchemaOf(config.responseSchema);
  if (mime === undefined || mime === 'text/plain') {
    if (isJsonObject(schema))
      throw new GeminiDecodeError('a response schema needs responseMimeType application/json.');
    return undefined;
  }
  if (mime !== 'application/json')
    throw new GeminiDecodeError(`responseMimeType '${mime}' cannot be sent to this provider.`);
  return isJsonObject(schema) ? { type: 'json_schema', name: 'response', schema } : { type: 'json_object' };
}
