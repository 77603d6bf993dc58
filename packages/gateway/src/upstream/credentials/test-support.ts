/** Helpers for the credential tests: local HTTP servers and captured output. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClientSecretCredentialOptions } from '@azure/identity';
import type { SignableRequest } from './signer.ts';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export interface LocalServer {
  readonly origin: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

export type Handler = (request: RecordedRequest, response: ServerResponse) => void;

/** An HTTP server on 127.0.0.1, port 0, recording every request. */
export async function startServer(handler: Handler): Promise<LocalServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      handler(recorded, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

export const request = (overrides: Partial<SignableRequest> = {}): SignableRequest => ({
  method: 'POST',
  url: 'https://upstream.example/v1/chat/completions',
  headers: { 'Content-Type': 'application/json' },
  body: '{"model":"m"}',
  ...overrides,
});

/** A manual clock for the signers' `now`. */
export function manualClock(start = Date.now()): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

/** Resolves once `condition` holds (background work), failing after ~2 s. */
export async function eventually(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not reached');
}

/** Runs `action` while recording console output and stderr writes (passed through). */
export async function captureOutput(action: () => Promise<void>): Promise<string> {
  const written: string[] = [];
  const methods = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
  const originals = methods.map((name) => console[name]);
  const stderrWrite = process.stderr.write.bind(process.stderr);
  for (const name of methods)
    console[name] = (...args: unknown[]) => void written.push(args.map(String).join(' '));
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return stderrWrite(chunk, ...rest);
  }) as typeof process.stderr.write;
  try {
    await action();
  } finally {
    methods.forEach((name, index) => (console[name] = originals[index] as (typeof console)[typeof name]));
    process.stderr.write = stderrWrite;
  }
  return written.join('\n');
}

type HttpClient = NonNullable<ClientSecretCredentialOptions['httpClient']>;

/**
 * @azure/identity refuses non-https authority hosts, so in tests the credential talks to an
 * https host through this client, which forwards each request to the local server over http.
 */
export function forwardingHttpClient(origin: string): HttpClient {
  return {
    async sendRequest(req) {
      const url = new URL(req.url);
      const response = await fetch(`${origin}${url.pathname}${url.search}`, {
        method: req.method,
        headers: Object.fromEntries(req.headers),
        ...(typeof req.body === 'string' ? { body: req.body } : {}),
      });
      const headers = new Map<string, string>();
      response.headers.forEach((value, name) => headers.set(name, value));
      return {
        request: req,
        status: response.status,
        bodyAsText: await response.text(),
        headers: {
          get: (name) => headers.get(name.toLowerCase()),
          has: (name) => headers.has(name.toLowerCase()),
          set: (name, value) => void headers.set(name.toLowerCase(), String(value)),
          delete: (name) => void headers.delete(name.toLowerCase()),
          toJSON: () => Object.fromEntries(headers),
          [Symbol.iterator]: () => headers.entries(),
        },
      };
    },
  };
}

/**
 * Runs `action` with process.env changed, then restores it exactly. Only for the ambient
 * credential libraries (AWS SDK, google-auth-library, @azure/identity), which read
 * process.env themselves and take no environment object. Variables whose name matches
 * `clear` are removed first so that the developer's own cloud setup cannot leak in.
 */
export async function withProcessEnv<T>(
  vars: Record<string, string>,
  action: () => Promise<T>,
  clear: RegExp = /^(AWS_|AZURE_|IDENTITY_|MSI_|IMDS_|GOOGLE_|GCE_|GCLOUD_|CLOUDSDK_|METADATA_SERVER)/,
): Promise<T> {
  const saved = { ...process.env };
  for (const name of Object.keys(process.env)) if (clear.test(name)) delete process.env[name];
  Object.assign(process.env, vars);
  try {
    return await action();
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
}
