/**
 * The gateway's internal model of a model call: what every front door decodes into and every
 * upstream encoder reads from. It holds everything the five upstream APIs and the three client
 * APIs can say about a conversation (thinking with its signature, cache hints, citations, server
 * tools), so a translation between two of them loses only what the target cannot express.
 */
import type { JsonObject } from '../json.ts';

/** A prompt-caching breakpoint (Anthropic `cache_control`, Bedrock `cachePoint`). */
export interface CacheHint {
  readonly type: 'ephemeral';
  readonly ttl?: '5m' | '1h';
}

export type MediaSource =
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'base64'; readonly mediaType: string; readonly data: string };

export interface Citation {
  readonly type: 'url';
  readonly url: string;
  readonly title?: string;
  readonly citedText?: string;
  readonly startIndex?: number;
  readonly endIndex?: number;
}

export interface TextPart {
  readonly type: 'text';
  readonly text: string;
  readonly cache?: CacheHint;
  readonly citations?: readonly Citation[];
}

export interface ImagePart {
  readonly type: 'image';
  readonly source: MediaSource;
  /** OpenAI `detail` (`low`, `high`, `auto`). */
  readonly detail?: string;
  readonly cache?: CacheHint;
}

export interface DocumentPart {
  readonly type: 'document';
  readonly source: MediaSource;
  readonly name?: string;
  readonly cache?: CacheHint;
}

export interface ToolCallPart {
  readonly type: 'tool_call';
  readonly id: string;
  readonly name: string;
  /** The arguments as JSON text, exactly as the model produced them. */
  readonly arguments: string;
  /** Opaque provider state that must come back with the call (Gemini `thoughtSignature`). */
  readonly signature?: string;
}

export interface ToolResultPart {
  readonly type: 'tool_result';
  readonly callId: string;
  /** The function's name, where the client said it (Gemini needs it, OpenAI does not send it). */
  readonly name?: string;
  readonly content: readonly (TextPart | ImagePart | DocumentPart)[];
  readonly isError?: boolean;
  readonly cache?: CacheHint;
}

export interface ThinkingPart {
  readonly type: 'thinking';
  readonly text: string;
  /** Must be sent back unmodified in tool loops (Anthropic, Bedrock). */
  readonly signature?: string;
}

export interface RedactedThinkingPart {
  readonly type: 'redacted_thinking';
  readonly data: string;
}

/** A server tool's call and result (Anthropic web search), carried verbatim between turns. */
export interface ServerToolPart {
  readonly type: 'server_tool_call' | 'server_tool_result';
  readonly id: string;
  readonly name?: string;
  readonly payload: JsonObject;
}

export type Part =
  | TextPart
  | ImagePart
  | DocumentPart
  | ToolCallPart
  | ToolResultPart
  | ThinkingPart
  | RedactedThinkingPart
  | ServerToolPart;

/** One turn. Tool results travel in user turns, as Anthropic, Bedrock and Gemini model them. */
export interface Turn {
  readonly role: 'user' | 'assistant';
  readonly content: readonly Part[];
}
