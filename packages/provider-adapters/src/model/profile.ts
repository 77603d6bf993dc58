/**
 * What the catalog says about one model on one provider, as the adapter needs it: the upstream
 * id, how each gateway effort is expressed, which tiers exist, whether web search exists and
 * its tool, and the output limits. The gateway validates the catalog into this shape.
 */
export const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type Effort = (typeof EFFORTS)[number];

export type GeminiThinkingLevel = 'MINIMAL' | 'LOW' | 'MEDIUM' | 'HIGH';

/** How one gateway effort is sent upstream. */
export type EffortExpression =
  /** Send nothing about reasoning (the model's default, or no reasoning control at all). */
  | { readonly kind: 'omit' }
  /** OpenAI and Azure `reasoning_effort`. */
  | { readonly kind: 'openai'; readonly value: string }
  /** Anthropic `thinking: {type: "enabled", budget_tokens}`, plus `output_config.effort` where the model takes it. */
  | { readonly kind: 'anthropic-budget'; readonly budgetTokens: number; readonly effort?: string }
  /** Anthropic `thinking: {type: "adaptive"}` plus `output_config.effort` (absent: the default, high). */
  | { readonly kind: 'anthropic-adaptive'; readonly effort?: string }
  /** Gemini `thinkingConfig.thinkingBudget` (0 = off). */
  | { readonly kind: 'gemini-budget'; readonly budgetTokens: number }
  /** Gemini 3 `thinkingConfig.thinkingLevel`. */
  | { readonly kind: 'gemini-level'; readonly level: GeminiThinkingLevel };

export type Tier = 'standard' | 'flex';

export interface OfferProfile {
  /** The id the upstream knows: Bedrock inference profile, Vertex publisher id, Azure deployment. */
  readonly upstreamModel: string;
  /** Gateway effort -> upstream expression. Its keys are exactly the efforts this offer accepts. */
  readonly efforts: Readonly<Partial<Record<Effort, EffortExpression>>>;
  readonly tiers: readonly Tier[];
  /** The upstream's web search tool type (`web_search_20250305`, `googleSearch`); absent: none. */
  readonly webSearchTool?: string;
  /** Output limit sent when the client gave none and the API requires one (Anthropic). */
  readonly defaultMaxOutputTokens: number;
  /** The model's own output ceiling. */
  readonly maxOutputTokens: number;
  /**
   * The model takes no sampling changes (Claude after Opus 4.6: temperature only 1.0, no
   * top_p/top_k; anything else is a 400): they are left out rather than failing the call.
   */
  readonly fixedSampling?: boolean;
}

/** Where an upstream is reached; not secret (credentials are the signer's). */
export interface EndpointParams {
  /** Base URL without a trailing slash, e.g. `https://bedrock-runtime.us-east-1.amazonaws.com`. */
  readonly baseUrl: string;
  /** Vertex location / AWS region, where the URL needs it. */
  readonly region?: string;
  /** Vertex project id. */
  readonly project?: string;
  /** Azure classic deployments: the `api-version` query value (absent: the v1 API). */
  readonly apiVersion?: string;
  /**
   * Azure: deployment names by the offer's `upstreamModel`, for deployments not named after
   * the catalog's ids; an upstream model without an entry is its own deployment name.
   */
  readonly deployments?: Readonly<Record<string, string>>;
}
