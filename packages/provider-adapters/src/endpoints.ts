/**
 * What each upstream API is, beside translation: where it is reached by default, which path a
 * base URL must end with, where its host names its region, and which effort expressions and
 * tools it can carry. The gateway checks its catalog and upstreams file against this at
 * start-up, so an offer that an adapter could not send, or a base URL it would call at the
 * wrong path, never reaches a request.
 */
import type { AdapterId } from './adapter.ts';
import { METERS } from './model/meters.ts';
import type { EffortExpression } from './model/profile.ts';

export interface AdapterTraits {
  readonly effortKinds: ReadonlySet<EffortExpression['kind']>;
  /** The API has a server-side web search tool. */
  readonly webSearch: boolean;
  /**
   * Every meter the adapter's usage parsers can fill: an offer served through it must price
   * each one (directly or through the meter's fallback), which the gateway checks at start-up.
   */
  readonly meters: readonly string[];
  /** The public endpoint when the configuration names none; undefined: it must name one. */
  defaultBaseUrl(where: { readonly region?: string }): string | undefined;
  /**
   * The path a configured base URL must end with: the adapter appends only the API's own
   * paths (`/chat/completions`, `/models/...`), so a base URL without its version segment
   * would be called at a path that does not exist. Undefined: the base URL is the bare origin
   * (or, for OpenAI-compatible servers, whatever precedes `/chat/completions`).
   */
  readonly baseUrlSuffix?: string;
  /**
   * The region a host of this API names (`bedrock-runtime.eu-west-1.amazonaws.com`), for
   * APIs whose credentials are scoped to a region; undefined when the host is not one of the
   * API's recognised forms (a proxy, a private DNS name).
   */
  regionOfHost?(host: string): string | undefined;
}

const { input, cachedInput, cacheWrite5m, cacheWrite1h, output, reasoning, webSearchCalls } = METERS;
const OPENAI_METERS = [input, cachedInput, cacheWrite5m, output, reasoning];
const ANTHROPIC_METERS = [input, cachedInput, cacheWrite5m, cacheWrite1h, output, reasoning, webSearchCalls];
const BEDROCK_METERS = [input, cachedInput, cacheWrite5m, cacheWrite1h, output];
const GEMINI_METERS = [input, cachedInput, output, reasoning, webSearchCalls];

const OPENAI_EFFORT = new Set(['omit', 'openai'] as const);
const ANTHROPIC_EFFORT = new Set(['omit', 'anthropic-budget', 'anthropic-adaptive'] as const);
const GEMINI_EFFORT = new Set(['omit', 'gemini-budget', 'gemini-level'] as const);

/** `us-east-1`, `eu-central-2`, `us-gov-west-1`, `ap-southeast-4`. */
const AWS_REGION = '[a-z]{2}(?:-[a-z]+)+-[0-9]+';
/**
 * Bedrock runtime hosts (AWS General Reference, "Amazon Bedrock endpoints and quotas", and
 * AWS PrivateLink's endpoint-specific DNS names): `bedrock-runtime.<region>.amazonaws.com`,
 * the FIPS form `bedrock-runtime-fips.<region>.amazonaws.com`, and interface VPC endpoints
 * `vpce-<id>.bedrock-runtime.<region>.vpce.amazonaws.com`.
 */
const BEDROCK_HOSTS = [
  new RegExp(`^bedrock-runtime(?:-fips)?\\.(${AWS_REGION})\\.amazonaws\\.com$`),
  new RegExp(`^vpce-[a-z0-9-]+\\.bedrock-runtime(?:-fips)?\\.(${AWS_REGION})\\.vpce\\.amazonaws\\.com$`),
];

function bedrockRegion(host: string): string | undefined {
  const lower = host.toLowerCase();
  for (const form of BEDROCK_HOSTS) {
    const region = form.exec(lower)?.[1];
    if (region !== undefined) return region;
  }
  return undefined;
}

function vertexBaseUrl(region: string | undefined): string {
  return region === undefined || region === 'global'
    ? 'https://aiplatform.googleapis.com/v1'
    : `https://${region}-aiplatform.googleapis.com/v1`;
}

export const ADAPTER_TRAITS: Readonly<Record<AdapterId, AdapterTraits>> = {
  openai: {
    effortKinds: OPENAI_EFFORT,
    webSearch: false,
    meters: OPENAI_METERS,
    defaultBaseUrl: () => 'https://api.openai.com/v1',
    baseUrlSuffix: '/v1',
  },
  'openai-compatible': {
    effortKinds: OPENAI_EFFORT,
    webSearch: false,
    meters: OPENAI_METERS,
    defaultBaseUrl: () => undefined,
  },
  // `<resource>/openai`: the adapter appends `/v1/...` or `/deployments/...`.
  'azure-openai': {
    effortKinds: OPENAI_EFFORT,
    webSearch: false,
    meters: OPENAI_METERS,
    defaultBaseUrl: () => undefined,
    baseUrlSuffix: '/openai',
  },
  anthropic: {
    effortKinds: ANTHROPIC_EFFORT,
    webSearch: true,
    meters: ANTHROPIC_METERS,
    defaultBaseUrl: () => 'https://api.anthropic.com',
  },
  'vertex-claude': {
    effortKinds: ANTHROPIC_EFFORT,
    webSearch: true,
    meters: ANTHROPIC_METERS,
    defaultBaseUrl: (w) => vertexBaseUrl(w.region),
    baseUrlSuffix: '/v1',
  },
  'bedrock-converse': {
    effortKinds: ANTHROPIC_EFFORT,
    // Bedrock accepts only client tools for Claude; Anthropic's web search is not offered there.
    webSearch: false,
    meters: BEDROCK_METERS,
    defaultBaseUrl: (w) => (w.region ? `https://bedrock-runtime.${w.region}.amazonaws.com` : undefined),
    regionOfHost: bedrockRegion,
  },
  gemini: {
    effortKinds: GEMINI_EFFORT,
    webSearch: true,
    meters: GEMINI_METERS,
    defaultBaseUrl: () => 'https://generativelanguage.googleapis.com/v1beta',
    baseUrlSuffix: '/v1beta',
  },
  'vertex-gemini': {
    effortKinds: GEMINI_EFFORT,
    webSearch: true,
    meters: GEMINI_METERS,
    defaultBaseUrl: (w) => vertexBaseUrl(w.region),
    baseUrlSuffix: '/v1',
  },
};
