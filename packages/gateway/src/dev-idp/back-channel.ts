/**
 * How the dashboard reaches the development provider it runs with: inside this process, through
 * app.inject, not over the network. The provider's URLs are public ones; behind a
 * TLS-terminating proxy the public name may not resolve, or not lead back to the gateway, from
 * inside (and a round trip through the proxy would gain nothing). A URL outside the provider's
 * public URL goes to the network as usual.
 */
import type { FastifyInstance } from 'fastify';
import { DEV_IDP_PATH } from './provider.ts';

/** What openid-client passes to a custom fetch (its `CustomFetchOptions`, reduced to what is used). */
interface FetchOptions {
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body?: ArrayBuffer | ReadableStream | string | Uint8Array | URLSearchParams | null;
}

function payloadOf(body: FetchOptions['body']): string | Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof ReadableStream) throw new TypeError('a streamed body is not sent in process');
  return Buffer.from(body instanceof ArrayBuffer ? new Uint8Array(body) : body);
}

export function inProcessFetch(app: FastifyInstance, publicBase: () => string) {
  return async (url: string, options: FetchOptions): Promise<Response> => {
    const base = publicBase();
    const target = new URL(url);
    const issuer = new URL(`${base}${DEV_IDP_PATH}`);
    const ours = target.origin === issuer.origin && target.pathname.startsWith(`${issuer.pathname}/`);
    if (!ours) return fetch(url, options);
    // The path as the proxy would forward it: without the public URL's path prefix.
    const path = target.pathname.slice(issuer.pathname.length - DEV_IDP_PATH.length);
    const payload = payloadOf(options.body);
    const response = await app.inject({
      method: options.method as 'GET' | 'POST',
      url: `${path}${target.search}`,
      headers: { ...options.headers, host: target.host },
      ...(payload === undefined ? {} : { payload }),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers))
      if (value !== undefined) for (const item of [value].flat()) headers.append(name, String(item));
    return new Response(response.statusCode === 204 ? null : response.rawPayload, {
      status: response.statusCode,
      headers,
    });
  };
}
