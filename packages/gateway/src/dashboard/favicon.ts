/**
 * The gateway's icon, for the landing page, the dashboard and the development identity
 * provider: an SVG among the dashboard's assets, served at the address browsers ask for on
 * their own (`/favicon.ico`), which the pages also name.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

export const FAVICON_PATH = '/favicon.ico';

const ICON = readFileSync(new URL('./assets/favicon.svg', import.meta.url));

export function faviconRoute(app: FastifyInstance): void {
  app.get(FAVICON_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply
      .headers({
        'content-type': 'image/svg+xml',
        'cache-control': 'public, max-age=86400',
        'x-content-type-options': 'nosniff',
        // An image, never a document that runs anything, even when opened on its own.
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      })
      .send(ICON),
  );
}
