/**
 * The Anthropic Messages wire format (API version 2023-06-01), as far as the gateway writes
 * it. Private to the codec: the rest of the gateway sees only the internal model. Responses
 * are read defensively from `JsonObject`s instead, because upstreams add fields at will.
 */
import type { JsonObject } from '../../json.ts';

export const ANTHROPIC_API = 'anthropic-messages';

export interface CacheControl {
  readonly type: 'ephemeral';
  readonly ttl?: '5m' | '1h';
}

export type MediaSourceWire =
  | { readonly type: 'base64'; readonly media_type: string; readonly data: string }
  | { readonly type: 'url'; readonly url: string }
  | { readonly type: 'text'; readonly media_type: 'text/plain'; readonly data: string };

export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
  readonly cache_control?: CacheControl;
}

export interface ImageBlock {
  readonly type: 'image';
  readonly source: MediaSourceWire;
  readonly cache_control?: CacheControl;
}

export interface DocumentBlock {
  readonly type: 'document';
  readonly source: MediaSourceWire;
  readonly title?: string;
  readonly cache_control?: CacheControl;
}

export interface ToolUseBlock {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: JsonObject;
}

export interface ToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content: readonly (TextBlock | ImageBlock | DocumentBlock)[];
  readonly is_error?: boolean;
  readonly cache_control?: CacheControl;
}

export interface ThinkingBlock {
  readonly type: 'thinking';
  readonly thinking: string;
  readonly signature: string;
}

export interface RedactedThinkingBlock {
  readonly type: 'redacted_thinking';
  readonly data: string;
}

/** Server tool blocks travel verbatim, exactly as the upstream produced them. */
export type ContentBlock =
  | TextBlock
  | ImageBlock
  | DocumentBlock
  | ToolUseBlock
  | ToolResultBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | JsonObject;

export interface MessageParam {
  readonly role: 'user' | 'assistant';
  readonly content: ContentBlock[];
}

export interface FunctionToolWire {
  readonly name: string;
  readonly description?: string;
  readonly input_schema: JsonObject;
  readonly strict?: boolean;
  readonly cache_control?: CacheControl;
}

export interface WebSearchToolWire {
  readonly type: string;
  readonly name: 'web_search';
  readonly max_uses?: number;
  readonly allowed_domains?: readonly string[];
  readonly blocked_domains?: readonly string[];
  readonly user_location?: JsonObject;
}

export type ToolChoiceWire =
  | { readonly type: 'auto' | 'any'; readonly disable_parallel_tool_use?: boolean }
  | { readonly type: 'tool'; readonly name: string; readonly disable_parallel_tool_use?: boolean }
  | { readonly type: 'none' };

export type ThinkingWire =
  { readonly type: 'enabled'; readonly budget_tokens: number } | { readonly type: 'adaptive' };

/** A Messages request body; `model` is absent on Vertex, which names the model in the path. */
export type MessagesBody = {
  model?: string;
  max_tokens: number;
  messages: MessageParam[];
  system?: TextBlock[];
  tools?: (FunctionToolWire | WebSearchToolWire)[];
  tool_choice?: ToolChoiceWire;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  metadata?: { user_id: string };
  thinking?: ThinkingWire;
  output_config?: JsonObject;
  stream?: boolean;
};
