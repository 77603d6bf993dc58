/**
 * Bedrock Converse request shapes as this adapter sends them (a subset of the API: only what
 * the internal model can say). Responses and stream events are read defensively from
 * `unknown`, so they have no types here.
 */
import type { JsonObject } from '../json.ts';

export interface CachePointBlock {
  readonly cachePoint: { readonly type: 'default'; readonly ttl?: '5m' | '1h' };
}

export type ToolResultItem = { readonly text: string } | ImageBlock | DocumentBlock;

export interface ImageBlock {
  readonly image: { readonly format: string; readonly source: { readonly bytes: string } };
}

export interface DocumentBlock {
  readonly document: {
    readonly format: string;
    readonly name: string;
    readonly source: { readonly bytes: string };
  };
}

export type ContentBlock =
  | { readonly text: string }
  | ImageBlock
  | DocumentBlock
  | {
      readonly toolUse: { readonly toolUseId: string; readonly name: string; readonly input: unknown };
    }
  | {
      readonly toolResult: {
        readonly toolUseId: string;
        readonly content: readonly ToolResultItem[];
        readonly status?: 'error';
      };
    }
  | {
      readonly reasoningContent:
        | { readonly reasoningText: { readonly text: string; readonly signature: string } }
        | { readonly redactedContent: string };
    }
  | CachePointBlock;

export interface ConverseMessage {
  readonly role: 'user' | 'assistant';
  readonly content: ContentBlock[];
}

export type SystemBlock = { readonly text: string } | CachePointBlock;

export type ToolChoice =
  { readonly auto: JsonObject } | { readonly any: JsonObject } | { readonly tool: { readonly name: string } };

export type ToolEntry =
  | {
      readonly toolSpec: {
        readonly name: string;
        readonly description?: string;
        readonly inputSchema: { readonly json: JsonObject };
      };
    }
  | CachePointBlock;

export interface ToolConfig {
  readonly tools: readonly ToolEntry[];
  readonly toolChoice?: ToolChoice;
}

export interface InferenceConfig {
  maxTokens: number;
  temperature?: number;
  topP?: number;
  stopSequences?: readonly string[];
}

/** Anthropic's own request keys, which Bedrock hands to Claude verbatim. */
export interface ClaudeFields {
  thinking?: { readonly type: 'enabled'; readonly budget_tokens: number } | { readonly type: 'adaptive' };
  output_config?: { readonly effort: string };
}

export interface ConverseRequest {
  messages: ConverseMessage[];
  system?: SystemBlock[];
  inferenceConfig: InferenceConfig;
  toolConfig?: ToolConfig;
  additionalModelRequestFields?: ClaudeFields;
  outputConfig?: {
    readonly textFormat: {
      readonly type: 'json_schema';
      readonly structure: { readonly jsonSchema: { readonly schema: string; readonly name: string } };
    };
  };
  serviceTier?: { readonly type: 'flex' };
}

export const CACHE_POINT_TYPE = 'default';
