/**
 * The OpenAI Chat Completions wire format, which is the gateway's client-facing API. Only the
 * fields the gateway reads or writes are typed; everything else travels as unknown JSON so
 * fields this code has never heard of reach OpenAI-compatible upstreams untouched.
 */

import type { JsonObject } from '../../json.ts';

export type { JsonObject };

export interface ChatMessage extends JsonObject {
  readonly role: string;
  readonly content?: unknown;
}

export interface ChatTool extends JsonObject {
  readonly type: string;
  readonly function?: { readonly name: string; readonly parameters?: unknown } & JsonObject;
}

export interface ChatCompletionRequest extends JsonObject {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly stream?: boolean | null;
  readonly stream_options?: ({ readonly include_usage?: boolean | null } & JsonObject) | null;
  readonly tools?: readonly ChatTool[];
  readonly tool_choice?: unknown;
  readonly max_tokens?: number | null;
  readonly max_completion_tokens?: number | null;
  readonly reasoning_effort?: string | null;
  readonly service_tier?: string | null;
}

export interface OpenAIUsage extends JsonObject {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  readonly prompt_tokens_details?: ({ readonly cached_tokens?: number } & JsonObject) | null;
  readonly completion_tokens_details?: ({ readonly reasoning_tokens?: number } & JsonObject) | null;
}

export interface ChatCompletion extends JsonObject {
  readonly id: string;
  readonly object: 'chat.completion';
  readonly created: number;
  readonly model: string;
  readonly choices: readonly JsonObject[];
  readonly usage?: OpenAIUsage;
}

export interface ChatCompletionChunk extends JsonObject {
  readonly id: string;
  readonly object: 'chat.completion.chunk';
  readonly created: number;
  readonly model: string;
  readonly choices: readonly JsonObject[];
  readonly usage?: OpenAIUsage | null;
}
