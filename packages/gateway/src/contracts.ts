/**
 * The seams between the gateway's areas. The request path reads top to bottom:
 * authenticate (access) -> resolve model and options (routing) -> select provider (routing)
 * -> reserve budget (access ledger) -> call upstream (upstream) -> translate (adapters)
 * -> settle (ledger) -> respond (chat). Each area implements its side of these interfaces.
 */
import type { AdapterId, EndpointParams, OfferProfile } from '@app/provider-adapters';
import type { Meters } from '@app/provider-adapters/model/meters.ts';
import type { FastifyRequest } from 'fastify';
import type { Signer } from './upstream/credentials/signer.ts';

export const PROVIDERS = ['developer', 'cloud_a', 'cloud_b', 'cloud_c'] as const;
export type ProviderId = (typeof PROVIDERS)[number];

export function isProviderId(value: string): value is ProviderId {
  return (PROVIDERS as readonly string[]).includes(value);
}

/** Compares provider ids by their place in PROVIDERS: the one order every listing shows. */
export function byProviderOrder(a: string, b: string): number {
  const rank = (id: string) => (PROVIDERS as readonly string[]).indexOf(id);
  return rank(a) - rank(b);
}

export const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type Effort = (typeof EFFORTS)[number];
export const TIERS = ['standard', 'flex'] as const;
export type Tier = (typeof TIERS)[number];
export const COMPRESSIONS = ['off', 'compact', 'compressed'] as const;
export type Compression = (typeof COMPRESSIONS)[number];
/** `chat` models answer the chat doors (completions, messages, responses, Gemini); `embedding` models /v1/embeddings. */
export const MODEL_KINDS = ['chat', 'embedding'] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];

/** US dollars x 1,000,000: integer arithmetic for money, so sums and comparisons are exact. */
export type Micros = number;

// ---- access -------------------------------------------------------------------------------

/** Who is calling: established from a verified personal access token. */
export interface Principal {
  readonly userId: number;
  readonly email: string;
  readonly projectId: number;
  readonly projectSlug: string;
  /** The token's `jti`. */
  readonly tokenId: string;
  readonly tokenExpiresAt: Date;
  /** Rate limits set by gateway admins for the project as a whole and for each of its tokens. */
  readonly limits: PrincipalLimits;
}

// ---- rate limits --------------------------------------------------------------------------

/** Per-minute and concurrency limits of one scope; an absent dimension is unlimited. */
export interface RateLimits {
  readonly requestsPerMinute?: number;
  /** Input + output tokens per minute, settled from real usage. */
  readonly tokensPerMinute?: number;
  readonly concurrentRequests?: number;
}

export interface PrincipalLimits {
  readonly project: RateLimits;
  readonly token: RateLimits;
}

/** One counted scope: a project or a token, with its limits. */
export interface LimitRule {
  readonly scope: 'project' | 'token';
  /** Stable key of the counted subject (project id, token jti). */
  readonly key: string;
  readonly limits: RateLimits;
}

/** What the x-ratelimit-* headers say about one dimension (the tightest scope's figures). */
export interface LimitWindow {
  readonly limit: number;
  readonly remaining: number;
  /** Until the window is back to its full allowance. */
  readonly resetMs: number;
}

export interface RateState {
  readonly requests?: LimitWindow;
  readonly tokens?: LimitWindow;
}

export type Admission =
  | { readonly admitted: true; readonly ticket: LimitTicket; readonly state: RateState }
  | {
      readonly admitted: false;
      readonly state: RateState;
      readonly scope: 'project' | 'token';
      readonly dimension: 'requests' | 'tokens' | 'concurrency';
      readonly limit: number;
      /** When the request could be admitted; undefined when it never can (asks more than the limit). */
      readonly retryAfterMs: number | undefined;
    };

/** An admitted request's hold on its limits, given back by `finish` with the tokens it used. */
export interface LimitTicket {
  finish(usedTokens: number): Promise<void>;
}

export interface RateLimiter {
  /**
   * Admits one request against every rule at once (all or nothing, atomic across instances
   * where the limiter is shared), counting `tokens` (its estimate) until it finishes.
   */
  admit(rules: readonly LimitRule[], tokens: number): Promise<Admission>;
  close(): Promise<void>;
}

/**
 * Where a client API puts the gateway token: `Authorization: Bearer <token>`, a header of its
 * own (`x-api-key`, `x-goog-api-key`) or a query parameter (`?key=`).
 */
export type TokenSource =
  | { readonly kind: 'bearer' }
  | { readonly kind: 'header'; readonly name: string }
  | { readonly kind: 'query'; readonly name: string };

export interface AccessControl {
  /**
   * Checks IP restrictions and the token of a `/v1/*` request, read from the first of `sources`
   * the request carries (default: Authorization, then x-api-key). Resolves the caller or throws a
   * catalogued AppError (401 missing/invalid/expired token, 403 IP not allowed).
   */
  authenticate(request: FastifyRequest, sources?: readonly TokenSource[]): Promise<Principal>;
}

export interface Reservation {
  readonly id: string;
  readonly principal: Principal;
  readonly provider: ProviderId;
  readonly amountMicros: Micros;
  /** The agent session the request belongs to (RoutePlan.session), written on its ledger row. */
  readonly session?: string | undefined;
}

export interface UsageRecord {
  /** Exact model version served. */
  readonly model: string;
  /** The whole prompt and the whole generation, every kind of token included. */
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** What was charged as named meters (`metersOf` of the bounded or estimated usage). */
  readonly meters: Meters;
  readonly costMicros: Micros;
  /** `ok`: settled from upstream usage; `error`/`aborted`: partial usage, if any, still charged. */
  readonly status: 'ok' | 'error' | 'aborted';
  /** What the activity log shows of the attempt besides the charge. */
  readonly activity?: AttemptActivity;
}

/** An attempt as the activity log lists it (the usage row's columns of migration 0008). */
export interface AttemptActivity {
  /** The Fastify request id: the one the client got in its request-id header. */
  readonly requestId: string;
  /** 1-based place among the request's upstream attempts; absent when it was never sent. */
  readonly attempt?: number | undefined;
  readonly effort?: string | undefined;
  /** The tier served (the upstream's word when it says, else the one asked). */
  readonly tier?: string | undefined;
  /**
   * Whether the row starts its request, the one reports count as a request: false for a later
   * attempt and for a release that was never sent after an earlier attempt (default true).
   */
  readonly newRequest?: boolean | undefined;
  readonly latencyMs?: number | undefined;
  readonly firstTokenMs?: number | undefined;
  /** `ok`, `client_left`, `gateway_error` or the upstream failure's kind. */
  readonly outcome?: string | undefined;
  readonly httpStatus?: number | undefined;
}

export interface BucketBalance {
  readonly allocatedMicros: Micros;
  readonly spentMicros: Micros;
  readonly reservedMicros: Micros;
  readonly remainingMicros: Micros;
}

export interface Ledger {
  /**
   * Reserves an estimate against the project's bucket for `provider`, atomically across
   * instances. Throws `gateway_allocation_exhausted` (402) when the bucket cannot cover it.
   */
  reserve(input: {
    principal: Principal;
    provider: ProviderId;
    estimateMicros: Micros;
    session?: string | undefined;
  }): Promise<Reservation>;
  /** The same, resolving to undefined when the bucket cannot cover the estimate. */
  tryReserve(input: {
    principal: Principal;
    provider: ProviderId;
    estimateMicros: Micros;
    session?: string | undefined;
  }): Promise<Reservation | undefined>;
  /** Replaces the reservation by the real cost and writes one usage-ledger row. */
  settle(reservation: Reservation, usage: UsageRecord): Promise<void>;
  /** Gives the reservation back (upstream failed before any usage). Writes a ledger row with status error. */
  release(
    reservation: Reservation,
    reason: string,
    model?: string,
    activity?: AttemptActivity,
  ): Promise<void>;
  /** Buckets of a project that have an allocation, by provider. */
  balances(projectId: number): Promise<Partial<Record<ProviderId, BucketBalance>>>;
}

// ---- routing ------------------------------------------------------------------------------

export interface ResolvedOptions {
  readonly effort: Effort;
  readonly tier: Tier;
  readonly compression: Compression;
}

/** Where and how to call an upstream; credentials were turned into a signer at start-up. */
export interface UpstreamTarget {
  /** The adapter that translates for this upstream. */
  readonly adapter: AdapterId;
  /** Base URL and the non-secret parameters its paths need (region, project, api-version). */
  readonly endpoint: EndpointParams;
  readonly signer: Signer;
  /** The model on this provider: upstream id, effort expressions, tiers, tools, limits. */
  readonly offer: OfferProfile;
  /** Request timeout for this upstream, ms (flex tiers need long ones). */
  readonly timeoutMs: number;
}

/**
 * Rates by meter name, each in its meter's unit: US dollars per million tokens for token meters
 * (which is micro-dollars per token), per thousand calls for call counts. A meter without a rate
 * is priced by its registry fallback (`reasoning` as `output`, `cache_write_5m` as `input`).
 */
export type MeterRates = Readonly<Record<string, number>>;

/** Rates for prompts larger than `abovePromptTokens` (Gemini Pro's long-context prices). */
export interface PromptSizeTier {
  readonly abovePromptTokens: number;
  /** Complete: the base rates with the tier's own laid over them. */
  readonly rates: MeterRates;
}

/** What one service tier of an offer costs: base rates, and dearer ones for larger prompts. */
export interface Price {
  readonly rates: MeterRates;
  /** Ascending by threshold; the last one a prompt is larger than applies. */
  readonly byPromptSize: readonly PromptSizeTier[];
}

/**
 * An embedding model's vectors and inputs: `dimensions` is the full length; shorter ones are any
 * from `minDimensions` up, or one of `dimensionValues`, or (neither) none.
 */
export interface EmbeddingLimits {
  readonly dimensions: number;
  readonly minDimensions?: number | undefined;
  readonly dimensionValues?: readonly number[] | undefined;
  /** Inputs one request may carry (split into upstream calls as each upstream takes them). */
  readonly maxInputs: number;
  /** Tokens one input may be. */
  readonly maxInputTokens: number;
}

export interface RoutePlan {
  /** The model string as the client sent it. */
  readonly requested: string;
  /** Exact model version (aliases resolved). */
  readonly model: string;
  /** The model's kind; absent (plans made by hand in tests) is `chat`. */
  readonly kind?: ModelKind;
  /** An embedding model's dimensions and input limits. */
  readonly embedding?: EmbeddingLimits | undefined;
  readonly family: string;
  /** The model's vendor (`openai`, `anthropic`, `google`): picks the tokenizer for compression. */
  readonly vendor?: string;
  readonly explicitProvider: ProviderId | undefined;
  /** Options after precedence (modifier > header > default), before provider constraints. */
  readonly options: ResolvedOptions;
  /** Header inputs that were ignored, as `dimension=value` (rendered in X-Gateway-Ignored). */
  readonly ignored: readonly string[];
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  /**
   * `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and a `successor-version` Link for a model
   * whose vendor announced its end; sent with the answer. Undefined for every other model.
   */
  readonly lifecycleHeaders?: Readonly<Record<string, string>> | undefined;
  /**
   * The coding agent's session (routing/session.ts): recorded with the request and kept on one
   * provider while it serves. Undefined without a session header or with a refused value.
   */
  readonly session?: string | undefined;
}

/** One entry of the live model list (`GET /v1/models`), for front doors that list in their own shape. */
export interface ListedModel {
  /** The exact version, or an alias (then `aliasOf` names the version it resolves to now). */
  readonly id: string;
  readonly aliasOf: string | undefined;
  readonly vendor: string;
  readonly family: string;
  /** Release date, Unix seconds. */
  readonly created: number;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  /** Effort words some usable provider accepts (`none` ... `max`). */
  readonly efforts: readonly string[];
  readonly providers: readonly ProviderId[];
}

/** The models a caller can use now: the same live computation as GET /v1/models. */
export interface ModelDirectory {
  /** Exact versions, each followed by its aliases, as GET /v1/models lists them. */
  list(principal: Principal): Promise<readonly ListedModel[]>;
  /**
   * One entry by exact id or alias; undefined when unknown or not usable now. Throws 410
   * `model_retired` for a retired version.
   */
  retrieve(principal: Principal, name: string): Promise<ListedModel | undefined>;
}

export interface Selection {
  readonly provider: ProviderId;
  readonly target: UpstreamTarget;
  readonly price: Price;
  /** Prices of every tier this provider offers the model: the charge follows the tier served. */
  readonly prices: Readonly<Partial<Record<Tier, Price>>>;
  /** Options as really applied on this provider (e.g. tier=standard where flex is not offered). */
  readonly options: ResolvedOptions;
}

/** How an upstream call failed; selection and the circuit breaker act on it. */
export type UpstreamFailureKind = 'client' | 'server' | 'timeout' | 'connection' | 'rate_limited' | 'auth';

export interface Router {
  /**
   * Parses and resolves a model name plus X-Gateway-* headers. Throws 400/404 AppErrors, and
   * 410 `model_retired` for a version past its retirement date.
   */
  resolve(model: string, headers: Readonly<Record<string, string | string[] | undefined>>): RoutePlan;
  /**
   * Picks the provider: the explicit one (never replaced), else the session's sticky one if the
   * plan has a session, else the sticky one for (user, project, family), each if still usable,
   * else the best usable one (serves the model, accepts the options and needed capabilities,
   * circuit closed, budget left).
   */
  select(
    plan: RoutePlan,
    principal: Principal,
    needs: { readonly tools: boolean; readonly webSearch: boolean },
    exclude?: readonly ProviderId[],
  ): Promise<Selection>;
  /**
   * A selection that sends nothing upstream after all (a token count the provider cannot make):
   * the half-open trial it may have taken goes to the next request.
   */
  release(selection: Selection, plan: RoutePlan): void;
  /** Reports the outcome of a call so the circuit breaker and stickiness can react. */
  report(
    selection: Selection,
    principal: Principal,
    plan: RoutePlan,
    outcome: 'ok' | UpstreamFailureKind,
  ): Promise<void>;
}
