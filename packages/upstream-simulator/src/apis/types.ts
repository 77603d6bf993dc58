import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimCredentials } from '../credentials.ts';
import type { AzureResource } from './azure-resource.ts';
import type { Reply } from '../reply.ts';
import type { CacheWrites } from './prompt-cache.ts';
import type { SimState } from '../respond.ts';

/** One request as an API module sees it: path split from the query, body read whole. */
export interface SimExchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  /** The path without the query string, e.g. `/anthropic/v1/messages`. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** The raw body bytes (SigV4 hashes exactly these). */
  readonly rawBody: Buffer;
  /** The body parsed as JSON, undefined when it is not JSON. */
  readonly body: unknown;
  /**
   * Notes the usage the answer reports on the request's `received` entry, for tests to compare,
   * with the prompt-cache writes inside its prompt tokens where the API reports them.
   */
  readonly reportUsage: (usage: Reply['usage'], cacheWrites?: CacheWrites) => void;
}

export interface SimContext {
  readonly state: SimState;
  readonly credentials: SimCredentials;
  /** Access tokens the simulator's Google token endpoint has issued, with their expiry (ms). */
  readonly googleTokens: Map<string, number>;
  /** `http://host:port` of this simulator. */
  readonly origin: string;
  /** The Azure OpenAI resource: its deployments and the Entra tokens issued for it. */
  readonly azure: AzureResource;
}

/**
 * One upstream API the simulator speaks, under its own path prefix. It answers in that API's
 * wire format, including its errors, and refuses what the real service refuses.
 */
export interface SimApi {
  readonly name: string;
  matches(method: string, path: string): boolean;
  handle(context: SimContext, exchange: SimExchange): Promise<void>;
}
