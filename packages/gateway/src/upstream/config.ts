import type { EnvMapping } from '@app/http-kit';
import { type Static, Type } from 'typebox';

const Ms = (defaultValue: number, description: string) =>
  Type.Integer({ minimum: 1, default: defaultValue, description });

/** The bundled upstream simulator, started by main.ts for the embedded default. */
const SimulatorConfigSchema = Type.Object(
  {
    enabled: Type.Boolean({
      default: true,
      description: 'Start the simulator (catalog upstreams `simulator`)',
    }),
    host: Type.String({ default: '127.0.0.1' }),
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 0, description: '0 picks a free port' }),
    tokenDelayMs: Type.Integer({ minimum: 0, default: 15, description: 'Delay between streamed tokens' }),
    firstTokenDelayMs: Type.Integer({
      minimum: 0,
      default: 150,
      description: 'Delay before the first token',
    }),
    replyTokens: Type.Integer({ minimum: 1, default: 24, description: 'Length of simulated replies' }),
  },
  { additionalProperties: false, default: {} },
);

/** Configuration of the upstream area (section `upstream` of the gateway config). */
export const UpstreamConfigSchema = Type.Object(
  {
    connectionsPerOrigin: Type.Integer({
      minimum: 1,
      default: 256,
      description: 'Keep-alive connections per upstream origin',
    }),
    connectTimeoutMs: Ms(5_000, 'TCP/TLS connect timeout'),
    bodyTimeoutMs: Ms(120_000, 'Longest silence between two upstream body chunks'),
    keepAliveTimeoutMs: Ms(30_000, 'Idle time before a pooled connection is closed'),
    connectRetries: Type.Integer({
      minimum: 0,
      maximum: 5,
      default: 1,
      description: 'Retries of requests that provably never reached the upstream',
    }),
    maxErrorBodyBytes: Type.Integer({ minimum: 1024, default: 64 * 1024 }),
    streamKeepAliveMs: Ms(10_000, 'SSE comment interval while a stream waits for its first token'),
    requestDeadlineMs: Ms(
      600_000,
      'Longest a call may take in total, trickling streams included (ends in 504 and settlement)',
    ),
    flexRequestDeadlineMs: Ms(1_800_000, 'The same for the flex tier, which queues for capacity upstream'),
    maxWebSearches: Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 5,
      description: 'Server-side web searches one request may make (sent as max_uses; each is reserved for)',
    }),
    maxChoices: Type.Integer({
      minimum: 1,
      maximum: 128,
      default: 8,
      description: 'Largest `n` (completions per request) accepted; each is reserved for',
    }),
    failoverAttempts: Type.Integer({
      minimum: 1,
      maximum: 10,
      default: 3,
      description:
        'Most providers one automatically routed request is sent to when they fail before answering (1: no failover)',
    }),
    sameProviderRetries: Type.Integer({
      minimum: 0,
      maximum: 5,
      default: 2,
      description: 'Retries on the same provider of a call it provably did not process (429, 503, 529)',
    }),
    retryMaxWaitMs: Type.Integer({
      minimum: 0,
      maximum: 60_000,
      default: 4_000,
      description:
        'Longest wait before a same-provider retry; a longer Retry-After goes to the client instead',
    }),
    simulator: SimulatorConfigSchema,
  },
  { additionalProperties: false, default: {} },
);

export type UpstreamConfig = Static<typeof UpstreamConfigSchema>;

/** Config path inside this section -> environment variable. */
export const UPSTREAM_ENV: EnvMapping = {
  connectionsPerOrigin: 'GATEWAY_UPSTREAM_CONNECTIONS',
  connectTimeoutMs: 'GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS',
  bodyTimeoutMs: 'GATEWAY_UPSTREAM_BODY_TIMEOUT_MS',
  keepAliveTimeoutMs: 'GATEWAY_UPSTREAM_KEEP_ALIVE_TIMEOUT_MS',
  connectRetries: 'GATEWAY_UPSTREAM_CONNECT_RETRIES',
  maxErrorBodyBytes: 'GATEWAY_UPSTREAM_MAX_ERROR_BODY_BYTES',
  streamKeepAliveMs: 'GATEWAY_STREAM_KEEPALIVE_MS',
  maxChoices: 'GATEWAY_MAX_CHOICES',
  maxWebSearches: 'GATEWAY_MAX_WEB_SEARCHES',
  requestDeadlineMs: 'GATEWAY_REQUEST_DEADLINE_MS',
  flexRequestDeadlineMs: 'GATEWAY_FLEX_REQUEST_DEADLINE_MS',
  failoverAttempts: 'GATEWAY_FAILOVER_ATTEMPTS',
  sameProviderRetries: 'GATEWAY_SAME_PROVIDER_RETRIES',
  retryMaxWaitMs: 'GATEWAY_RETRY_MAX_WAIT_MS',
  'simulator.enabled': 'GATEWAY_SIMULATOR',
  'simulator.host': 'GATEWAY_SIMULATOR_HOST',
  'simulator.port': 'GATEWAY_SIMULATOR_PORT',
  'simulator.tokenDelayMs': 'GATEWAY_SIMULATOR_TOKEN_DELAY_MS',
  'simulator.firstTokenDelayMs': 'GATEWAY_SIMULATOR_FIRST_TOKEN_DELAY_MS',
  'simulator.replyTokens': 'GATEWAY_SIMULATOR_REPLY_TOKENS',
};
