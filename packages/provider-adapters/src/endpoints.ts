/**
 * What each upstream API is, beside translation: where it is reached by default, and which
 * effort expressions and tools it can carry. The gateway checks its catalog against this at
 * start-up, so an offer that an adapter could not send never reaches a request.
 */
import type { AdapterId } from './adapter.ts';
import type { EffortExpression } from './model/profile.ts';

export interface AdapterTraits {
  readonly effortKinds: ReadonlySet<EffortExpression['kind']>;
  /** The API has a server-side web search tool. */
  readonly webSearch: boolean;
  /** The public endpoint when the configuration names none; undefined: it must name one. */
  defaultBaseUrl(where: { readonly region?: string }): string | undefined;
}

const OPENAI_EFFORT = new Set(['omit', 'openai'] as const);
const ANTHROPIC_EFFORT = new Set(['omit', 'anthropic-budget', 'anthropic-adaptive'] as const);
const GEMINI_EFFORT = new Set(['omit', 'gemini-budget', 'gemini-level'] as const);

function vertexBaseUrl(region: string | undefined): string {
  return region === undefined || region === 'global'
    ? 'https://aiplatform.googleapis.com/v1'
    : `https://${region}-aiplatform.googleapis.com/v1`;
}

export const ADAPTER_TRAITS: Readonly<Record<AdapterId, AdapterTraits>> = {
  openai: { effortKinds: OPENAI_EFFORT, webSearch: false, defaultBaseUrl: () => 'https://api.openai.com/v1' },
  'openai-compatible': { effortKinds: OPENAI_EFFORT, webSearch: false, defaultBaseUrl: () => undefined },
  'azure-openai': { effortKinds: OPENAI_EFFORT, webSearch: false, defaultBaseUrl: () => undefined },
  anthropic: {
    effortKinds: ANTHROPIC_EFFORT,
    webSearch: true,
    defaultBaseUrl: () => 'https://api.anthropic.com',
  },
  'vertex-claude': {
    effortKinds: ANTHROPIC_EFFORT,
    webSearch: true,
    defaultBaseUrl: (w) => vertexBaseUrl(w.region),
  },
  'bedrock-converse': {
    effortKinds: ANTHROPIC_EFFORT,
    // Bedrock accepts only client tools for Claude; Anthropic's web search is not offered there.
    webSearch: false,
    defaultBaseUrl: (w) => (w.region ? `https://bedrock-runtime.${w.region}.amazonaws.com` : undefined),
  },
  gemini: {
    effortKinds: GEMINI_EFFORT,
    webSearch: true,
    defaultBaseUrl: () => 'https://generativelanguage.googleapis.com/v1beta',
  },
  'vertex-gemini': {
    effortKinds: GEMINI_EFFORT,
    webSearch: true,
    defaultBaseUrl: (w) => vertexBaseUrl(w.region),
  },
};
