/**
 * The contract every upstream adapter implements. Adapters are pure translation over plain
 * data: no sockets, no clock, no web framework, no credentials. Transport, signing, retries,
 * circuit breaking and charging live in the gateway, each in one place.
 */
import type { EffortExpression, EndpointParams, OfferProfile, Tier } from './model/profile.ts';
import type {
  EmbeddingsReply,
  EmbeddingsRequest,
  EmbeddingsResult,
  EmbeddingsTarget,
} from './model/embeddings.ts';
import type { ModelRequest, SourceBody, WireApi } from './model/request.ts';
import type { ParsedResponse, StreamEvent, UpstreamFailure } from './model/response.ts';

/** Every adapter there is. A catalog or upstreams entry naming another one does not validate. */
export const ADAPTER_IDS = [
  'openai',
  'openai-compatible',
  'azure-openai',
  'anthropic',
  'vertex-claude',
  'bedrock-converse',
  'gemini',
  'vertex-gemini',
] as const;
export type AdapterId = (typeof ADAPTER_IDS)[number];

export interface BuildInput {
  readonly request: ModelRequest;
  /**
   * The client's body as sent. An adapter whose `wireApi` is `source.api` forwards it with only
   * the gateway's edits (model id, effort, tier), so nothing the client sent is lost.
   */
  readonly source: SourceBody | undefined;
  readonly offer: OfferProfile;
  readonly endpoint: EndpointParams;
  /** The effort to apply, already looked up in `offer.efforts` (`omit` sends nothing). */
  readonly reasoning: EffortExpression;
  readonly tier: Tier;
}

/** An unsigned HTTP request for the transport: the signer adds credentials over exactly this. */
export interface UpstreamHttpRequest {
  readonly method: 'POST' | 'GET';
  /** Absolute URL (`endpoint.baseUrl` + the API's path and query). */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface ResponseContext {
  /** The API of the client's front door: `native` output is produced for it only. */
  readonly clientApi: WireApi;
}

/** Upstream stream bytes in, events out; stateful across pushes, but does no I/O. */
export interface StreamTranslator {
  push(bytes: Uint8Array): StreamEvent[];
  /** The upstream body ended; flushes anything buffered. */
  end(): StreamEvent[];
}

export interface UpstreamErrorResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** What a token count needs: the client's body (the counter's own API), the model, the endpoint. */
export interface CountInput {
  readonly source: SourceBody;
  readonly offer: OfferProfile;
  readonly endpoint: EndpointParams;
}

/** An upstream's own prompt-token counter (Anthropic's `count_tokens`): free, nothing generated. */
export interface TokenCounter {
  /** Throws AdapterRequestError when the client's body is not of the counter's API. */
  buildRequest(input: CountInput): UpstreamHttpRequest;
  /** The input-token count of a 2xx body; throws AdapterParseError when it has none. */
  parseResponse(body: string): number;
}

/** Where a resource's deployments are listed (Azure Resource Manager); nothing secret. */
export interface DeploymentsLocation {
  /** The management endpoint without a trailing slash, e.g. `https://management.azure.com`. */
  readonly baseUrl: string;
  readonly subscriptionId: string;
  readonly resourceGroup: string;
  readonly account: string;
}

/** One page of a deployments list. */
export interface DeploymentsPage {
  readonly names: readonly string[];
  /** The next page's URL, on the same origin as the request; absent on the last page. */
  readonly nextLink: string | undefined;
}

/**
 * An upstream whose model ids are deployments the operator creates and names (Azure): which
 * deployment an offer is called at, and the management API call that lists those that exist.
 */
export interface DeploymentLister {
  /** The deployment an offer is sent to on this endpoint (its mapping, else the upstream model). */
  deploymentOf(upstreamModel: string, endpoint: EndpointParams): string;
  /** The first page's request, or the page at `nextLink`; unsigned (the signer adds a token). */
  buildRequest(location: DeploymentsLocation, nextLink?: string): UpstreamHttpRequest;
  /** A 2xx body; throws AdapterParseError when it is not a deployments list. */
  parseResponse(body: string, location: DeploymentsLocation): DeploymentsPage;
  /** The error code of a refusal (`AuthorizationFailed`), for the operator; undefined if none. */
  errorCode(body: string): string | undefined;
}

/**
 * An upstream's embeddings API. A batch larger than one upstream call takes is split into
 * several calls, sent in any order or at once; `parseResponses` puts the vectors back in input
 * order. Failures are the adapter's `mapError`'s.
 */
export interface EmbeddingsTranslator {
  /** The most inputs one upstream call of this model takes. */
  maxInputsPerCall(upstreamModel: string): number;
  /** Throws AdapterRequestError when the request cannot be expressed for this upstream. */
  buildRequests(request: EmbeddingsRequest, target: EmbeddingsTarget): UpstreamHttpRequest[];
  /** The 2xx answers to `buildRequests`'s requests, in their order; throws AdapterParseError. */
  parseResponses(replies: readonly EmbeddingsReply[], request: EmbeddingsRequest): EmbeddingsResult;
  /**
   * The input tokens some of those answers report, summed: undefined when one reports none or
   * is unreadable. A batch that failed part-way is charged for the calls that answered.
   */
  reportedInputTokens(replies: readonly EmbeddingsReply[]): number | undefined;
}

export interface ProviderAdapter {
  readonly id: AdapterId;
  /** The API this upstream speaks when it is also a client API (same-API passthrough). */
  readonly wireApi: WireApi | undefined;
  /** Throws AdapterRequestError when the request cannot be expressed for this upstream. */
  buildRequest(input: BuildInput): UpstreamHttpRequest;
  /** Parses a successful (2xx) non-streaming body; throws AdapterParseError when it is not one. */
  parseResponse(body: string, context: ResponseContext): ParsedResponse;
  createStreamTranslator(context: ResponseContext): StreamTranslator;
  mapError(response: UpstreamErrorResponse): UpstreamFailure;
  /** Present where the upstream counts tokens itself. */
  readonly countTokens?: TokenCounter;
  /** Present where the model ids sent upstream are deployments the operator names. */
  readonly deployments?: DeploymentLister;
  /** Present where the upstream serves embeddings. */
  readonly embeddings?: EmbeddingsTranslator;
}

/** The upstream answered 2xx with something that is not a response of its API. */
export class AdapterParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdapterParseError';
  }
}

/** The client's request asks for something this upstream cannot do (a 400 for the client). */
export class AdapterRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdapterRequestError';
  }
}
