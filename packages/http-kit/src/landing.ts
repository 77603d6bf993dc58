/**
 * What a service serves to browsers outside its API, in the look both services share: `GET /`,
 * a page saying what the service is and where to go (a browser opening the base address would
 * otherwise get a bare JSON 404), its stylesheet, and the service's icon at `/favicon.ico`,
 * which browsers ask for on their own. API clients asking for `/` get what the service decides:
 * a JSON document, or its JSON 404.
 */
import { readFileSync } from 'node:fs';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type Html, html } from './html.ts';

export const FAVICON_PATH = '/favicon.ico';
export const PAGE_STYLESHEET_PATH = '/assets/page.css';

const STYLESHEET = readFileSync(new URL('./assets/page.css', import.meta.url));

/** The pages run no script and hold no form: styles and images from this origin, never framed. */
export const PAGE_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** A page in the common look: the service's name in the banner and the title, the API docs below. */
export function publicPage(service: string, title: string, body: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} - ${service}</title>
        <link rel="stylesheet" href="${PAGE_STYLESHEET_PATH}" />
        <link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml" />
      </head>
      <body>
        <header class="banner">
          <p><strong>${service}</strong></p>
        </header>
        <main id="main">
          <h1>${title}</h1>
          ${body}
        </main>
        <footer>
          <p><a href="/docs">API documentation</a> · <a href="/openapi.json">OpenAPI</a></p>
        </footer>
      </body>
    </html>`.text;
}

// Whether the client prefers HTML to JSON. The first supported type wins for */* or no header,
// so curl and API clients never get HTML; a browser (text/html,...,*/*;q=0.8) does.
export function wantsHtml(request: FastifyRequest): boolean {
  return negotiate(request.headers.accept ?? '*/*', ['application/json', 'text/html']) === 'text/html';
}

export function sendPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': PAGE_CSP,
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      vary: 'accept',
    })
    .send(body);
}

/** The stylesheet of the pages, and the service's icon (an SVG) where browsers look for it. */
export function installPageAssets(app: FastifyInstance, icon: Buffer): void {
  app.get(FAVICON_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply
      .headers({
        'content-type': 'image/svg+xml',
        'cache-control': 'public, max-age=86400',
        'x-content-type-options': 'nosniff',
        // An image, never a document that runs anything, even when opened on its own.
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      })
      .send(icon),
  );
  app.get(PAGE_STYLESHEET_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply
      .headers({
        'content-type': 'text/css; charset=utf-8',
        'cache-control': 'public, max-age=300',
        'x-content-type-options': 'nosniff',
      })
      .send(STYLESHEET),
  );
}

export interface LandingOptions {
  /** The service's name, as the banner and the page title show it. */
  readonly service: string;
  /** Its icon, an SVG document. */
  readonly icon: Buffer;
  /** The page's content under its heading: what the service is, its links. */
  readonly body: Html;
  /** What an API client gets at `/`: a document to send as JSON, or a thrown error (a 404). */
  readonly forApiClients: (request: FastifyRequest) => object;
}

/** `GET /` (and HEAD) negotiated between the page and `forApiClients`, plus the page's assets. */
export function landingRoutes(options: LandingOptions): FastifyPluginAsync {
  const page = publicPage(options.service, 'Welcome', options.body);
  return async (app) => {
    installPageAssets(app, options.icon);
    app.get('/', { schema: { hide: true } }, async (request, reply) => {
      if (wantsHtml(request)) return sendPage(reply, 200, page);
      // Set before forApiClients may throw: a cache must not hand the JSON to a browser either.
      reply.header('vary', 'accept');
      return reply.send(options.forApiClients(request));
    });
  };
}
