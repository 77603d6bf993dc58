import type { JsonObject } from '../json.ts';
import type { CacheHint, TextPart, Turn } from './content.ts';

export interface FunctionTool {
  readonly type: 'function';
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the arguments. */
  readonly parameters: JsonObject;
  readonly strict?: boolean;
  readonly cache?: CacheHint;
}

/** The provider-hosted web search tool, in whatever shape the upstream's profile names. */
export interface WebSearchTool {
  readonly type: 'web_search';
  readonly maxUses?: number;
  readonly allowedDomains?: readonly string[];
  readonly blockedDomains?: readonly string[];
  readonly userLocation?: JsonObject;
  readonly contextSize?: 'low' | 'medium' | 'high';
}

export type Tool = FunctionTool | WebSearchTool;

export type ToolChoice =
  | { readonly type: 'auto' }
  | { readonly type: 'none' }
  | { readonly type: 'required' }
  | { readonly type: 'tool'; readonly name: string };

export type ResponseFormat =
  | { readonly type: 'text' }
  | { readonly type: 'json_object' }
  | {
      readonly type: 'json_schema';
      readonly name: string;
      readonly schema: JsonObject;
      readonly strict?: boolean;
    };

/** A model call, independent of the API it arrived in or leaves by. */
export interface ModelRequest {
  readonly system: readonly TextPart[];
  readonly turns: readonly Turn[];
  readonly tools: readonly Tool[];
  readonly toolChoice?: ToolChoice;
  readonly parallelToolCalls?: boolean;
  /** The client's output limit (reasoning included), if it set one. */
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly stop?: readonly string[];
  readonly responseFormat?: ResponseFormat;
  readonly stream: boolean;
  /** An end-user id for abuse monitoring (OpenAI `user`, Anthropic `metadata.user_id`). */
  readonly user?: string;
}

/** The client APIs the gateway speaks, which are also upstream APIs (same-API passthrough). */
export type WireApi = 'openai-chat' | 'anthropic-messages' | 'openai-responses' | 'gemini-generate';

/** The client's body as it arrived, for an upstream that speaks the same API. */
export interface SourceBody {
  readonly api: WireApi;
  readonly body: JsonObject;
  /**
   * Anthropic `anthropic-beta` header values the client sent: headers are not in the body, and
   * an upstream of the same API must get them too (an upstream of another API cannot).
   */
  readonly betas?: readonly string[];
  /**
   * Whether the client asked for a stream where its API says so outside the body (Gemini's
   * `:streamGenerateContent` method is in the URL): a passthrough never decodes the body.
   */
  readonly stream?: boolean;
}
