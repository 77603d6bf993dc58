/**
 * Google's generateContent wire shapes, shared by the Gemini Developer API and Vertex AI
 * (same body, different URL, auth and tier switch). Private to the Gemini adapters: the rest
 * of the gateway speaks the internal model only.
 */
import type { JsonObject } from '../../json.ts';

export interface GeminiFunctionCall {
  readonly name: string;
  readonly args: JsonObject;
  readonly id?: string;
}

export interface GeminiFunctionResponse {
  readonly name: string;
  readonly response: JsonObject;
  readonly id?: string;
}

export interface GeminiPart {
  readonly text?: string;
  readonly thought?: boolean;
  /** Opaque; Gemini 3 validates that it comes back on the function calls of the current turn. */
  readonly thoughtSignature?: string;
  readonly inlineData?: { readonly mimeType: string; readonly data: string };
  readonly fileData?: { readonly mimeType?: string; readonly fileUri: string };
  readonly functionCall?: GeminiFunctionCall;
  readonly functionResponse?: GeminiFunctionResponse;
}

export interface GeminiContent {
  readonly role: 'user' | 'model';
  readonly parts: GeminiPart[];
}

export interface GeminiThinkingConfig {
  readonly thinkingBudget?: number;
  readonly thinkingLevel?: string;
}

export interface GeminiGenerationConfig {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  responseMimeType?: string;
  responseJsonSchema?: JsonObject;
  thinkingConfig?: GeminiThinkingConfig;
}

export type GeminiTool =
  | {
      readonly functionDeclarations: ReadonlyArray<{
        readonly name: string;
        readonly description?: string;
        readonly parametersJsonSchema: JsonObject;
      }>;
    }
  | { readonly [searchTool: string]: JsonObject };

export interface GeminiToolConfig {
  readonly functionCallingConfig: {
    readonly mode: 'AUTO' | 'ANY' | 'NONE';
    readonly allowedFunctionNames?: readonly string[];
  };
}

export interface GeminiRequestBody {
  contents: GeminiContent[];
  systemInstruction?: { readonly parts: ReadonlyArray<{ readonly text: string }> };
  tools?: GeminiTool[];
  toolConfig?: GeminiToolConfig;
  generationConfig?: GeminiGenerationConfig;
  /** Gemini Developer API only; Vertex takes the tier as a header. */
  serviceTier?: 'flex';
}

/**
 * What differs between the two services in the request body. Everything else about the body
 * is the same, which is why both adapters share one codec.
 */
export interface GeminiDialect {
  /** URL schemes `fileData.fileUri` may use (Vertex reads `gs://`, both read public https). */
  readonly fileUriSchemes: readonly string[];
  /** Whether `googleSearch` takes `excludeDomains` (Vertex only). */
  readonly searchExcludeDomains: boolean;
}

/** The client API of Gemini's generateContent, for a Gemini front door and same-API passthrough. */
export const GEMINI_API = 'gemini-generate' as const;
