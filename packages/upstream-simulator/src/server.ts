/**
 * A local OpenAI-compatible upstream: deterministic chat completions (JSON or SSE streamed
 * token by token), tool calls, usage figures, `GET /v1/models`, and failures on request.
 * Plain node:http, so as a benchmark baseline it costs as little as possible.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIM_APIS } from './apis/index.ts';
import type { SimContext, SimExchange } from './apis/types.ts';
import { errorBody } from './chunks.ts';
import { credentialEnv, generateCredentials, type SimCredentials } from './credentials.ts';
import type { Behaviour } from './faults.ts';
import type { Reply } from './reply.ts';
import type { CacheWrites } from './apis/prompt-cache.ts';
import { parseJsonBody, readBody, record, type SimState, sendJson } from './respond.ts';
import { GOOGLE_TOKEN_PATH } from './apis/google-token.ts';
import { AZURE_IDENTITY_PATH, type AzureResourceOptions, azureResource } from './apis/azure-resource.ts';

export interface SimulatorOptions {
  readonly host?: string;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** Applied to every request unless the request says otherwise. */
  readonly behaviour?: Behaviour;
  /** Ids listed by `GET /v1/models` (chat accepts any model id). */
  readonly models?: readonly string[];
  /** How many received requests are kept for inspection. */
  readonly keepRequests?: number;
  /** Credentials to issue and check (default: fresh ones). */
  readonly credentials?: SimCredentials;
  /** The Azure OpenAI resource: where Resource Manager finds it, and its deployments. */
  readonly azure?: AzureResourceOptions;
}

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: unknown;
  /**
   * The usage the answer reported, in OpenAI's terms whatever the API (Anthropic `input_tokens`
   * and Bedrock `inputTokens` are `prompt_tokens`, ...); set when a reply was built, absent for a
   * refusal or an injected failure.
   */
  usage?: Reply['usage'];
  /** The prompt-cache writes inside `usage.prompt_tokens` (Anthropic, Bedrock), when any. */
  cacheWrites?: CacheWrites;
}

export interface Simulator {
  /** `http://host:port`. */
  readonly url: string;
  /** `http://host:port/v1`: the base URL an OpenAI client or the gateway is given. */
  readonly baseUrl: string;
  /** The last requests received, oldest first. */
  readonly received: readonly ReceivedRequest[];
  /** TCP connections accepted so far (keep-alive reuse keeps this low). */
  readonly connections: number;
  /** Streams whose client went away before the stream ended. */
  readonly abortedStreams: number;
  readonly credentials: SimCredentials;
  /** Environment variables holding the credentials, as `upstreams.simulated.json` names them. */
  readonly credentialEnv: Readonly<Record<string, string>>;
  /**
   * App Service's managed identity variables (`IDENTITY_ENDPOINT`, `IDENTITY_HEADER`), pointing
   * at this simulator: @azure/identity reads them from the process environment.
   */
  readonly azureIdentityEnv: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

const DEFAULT_MODELS = ['sim-small', 'sim-large'];

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const closing = new AbortController();
  const state: SimState = {
    options,
    received: [],
    keep: options.keepRequests ?? 100,
    closing: closing.signal,
    stats: { connections: 0, abortedStreams: 0 },
  };
  const models = options.models ?? DEFAULT_MODELS;
  const credentials = options.credentials ?? generateCredentials();
  const context: { -readonly [K in keyof SimContext]: SimContext[K] } = {
    state,
    credentials,
    googleTokens: new Map(),
    origin: '',
    azure: azureResource(options.azure),
  };
  const server = createServer((req, res) => {
    const [path = '/', query = ''] = (req.url ?? '/').split('?', 2);
    const method = req.method ?? 'GET';
    if (method === 'GET' && (path === '/v1/models' || path === '/models')) {
      const data = models.map((id) => ({ id, object: 'model', created: 1767225600, owned_by: 'simulator' }));
      sendJson(res, 200, JSON.stringify({ object: 'list', data }));
      return;
    }
    const api = SIM_APIS.find((candidate) => candidate.matches(method, path));
    if (!api) {
      const message = `Unknown route ${method} ${path}.`;
      sendJson(res, 404, errorBody(message, 'invalid_request_error', 'not_found'));
      return;
    }
    readBody(req)
      .then((rawBody) => {
        let entry: ReceivedRequest | undefined;
        const exchange: SimExchange = {
          req,
          res,
          method,
          path,
          query: new URLSearchParams(query),
          rawBody,
          body: parseJsonBody(rawBody),
          reportUsage: (usage, cacheWrites) => {
            if (!entry) return;
            entry.usage = usage;
            if (cacheWrites && cacheWrites.fiveMinutes + cacheWrites.oneHour > 0)
              entry.cacheWrites = cacheWrites;
          },
        };
        // Token issuers are not upstream calls: tests count the calls without them.
        if (api.name !== 'google-oauth' && exchange.path !== AZURE_IDENTITY_PATH)
          entry = record(state, exchange);
        return api.handle(context, exchange);
      })
      .catch(() => res.destroy());
  });
  server.keepAliveTimeout = 65_000;
  server.on('connection', (socket) => {
    state.stats.connections++;
    socket.setNoDelay(true);
  });
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  context.origin = url;
  return {
    url,
    baseUrl: `${url}/v1`,
    received: state.received,
    get connections() {
      return state.stats.connections;
    },
    get abortedStreams() {
      return state.stats.abortedStreams;
    },
    credentials,
    credentialEnv: credentialEnv(credentials, `${url}${GOOGLE_TOKEN_PATH}`),
    azureIdentityEnv: {
      IDENTITY_ENDPOINT: `${url}${AZURE_IDENTITY_PATH}`,
      IDENTITY_HEADER: credentials.azureIdentityHeader,
    },
    close: async () => {
      closing.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
