/**
 * The development identity provider, mounted at /dev-idp in the gateway's own process so the
 * dashboard's sign-in works offline on the embedded default. oidc-provider (a Koa app) answers
 * every /dev-idp path except the interaction pages (sign-in form, consent), served here.
 */
import formbody from '@fastify/formbody';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { createDevProvider, DEV_IDP_PATH, type DevClient, devIdpUrls } from './provider.ts';
import { checkPassword, type DevUser } from './users.ts';
import { consentPage, errorPage, loginPage, PAGE_CSP } from './views.ts';

export { inProcessFetch } from './back-channel.ts';
export { DEV_IDP_PATH, type DevClient, devIdpUrls } from './provider.ts';
export { type DevUser, loadDevUsers } from './users.ts';

export interface DevIdpDeps {
  /**
   * The gateway's public base URL (GATEWAY_PUBLIC_URL, else where it listens) and the dashboard
   * as client. Resolved per request: the port may be known only once the gateway listens.
   */
  readonly settings: () => { readonly publicBase: string; readonly client: DevClient };
  readonly users: readonly DevUser[];
}

type ProxiedRequest = IncomingMessage & { baseUrl?: string };

/**
 * The request as oidc-provider must see it to publish public URLs: behind a TLS-terminating
 * proxy it arrives as plain HTTP, maybe under another host, without the proxy's path prefix.
 * The provider trusts X-Forwarded-Proto and -Host (`proxy`), set here from the configured public
 * URL, never from what the client or the proxy sent; `baseUrl` is where it is mounted publicly.
 */
function asPublic(raw: ProxiedRequest, publicBase: string): void {
  const url = new URL(publicBase);
  raw.headers['x-forwarded-proto'] = url.protocol.slice(0, -1);
  raw.headers['x-forwarded-host'] = url.host;
  raw.baseUrl = `${url.pathname.replace(/\/+$/, '')}${DEV_IDP_PATH}`;
}

const CLIENT_NAME = 'Model gateway dashboard';
const HTML_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': PAGE_CSP,
};

export function devIdpRoutes(deps: DevIdpDeps): FastifyPluginAsync {
  let provider: Promise<Provider> | undefined;
  const providerOf = () => {
    const { publicBase, client } = deps.settings();
    provider ??= createDevProvider(publicBase, client, deps.users);
    return provider;
  };
  return async (app) => {
    app.addHook('onRequest', async (request) => asPublic(request.raw, deps.settings().publicBase));
    await app.register(async (scope) => mountProvider(scope, providerOf));
    await app.register(async (scope) => interactionRoutes(scope, providerOf, deps));
  };
}

/**
 * Hands the raw request to oidc-provider, with the mount path stripped as it expects (it learns
 * the public mount path from `baseUrl`, set by asPublic).
 */
async function mountProvider(scope: FastifyInstance, providerOf: () => Promise<Provider>): Promise<void> {
  // oidc-provider reads and limits request bodies itself: leave the stream unread.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  scope.route({
    method: ['GET', 'POST', 'OPTIONS'],
    url: `${DEV_IDP_PATH}/*`,
    schema: { hide: true },
    handler: async (request, reply) => {
      const callback = (await providerOf()).callback();
      reply.hijack();
      const raw: ProxiedRequest = request.raw;
      raw.url = (raw.url ?? '/').slice(DEV_IDP_PATH.length) || '/';
      callback(raw, reply.raw);
    },
  });
}

/**
 * The sign-in and consent pages. Their forms are bound to the interaction by oidc-provider's
 * `_interaction` cookie (SameSite=Lax, path-scoped): a cross-site post does not carry it and
 * is refused by interactionDetails.
 */
async function interactionRoutes(
  scope: FastifyInstance,
  providerOf: () => Promise<Provider>,
  deps: DevIdpDeps,
): Promise<void> {
  const { users } = deps;
  // Form actions and links as the browser must reach them: under the public URL.
  const urls = () => devIdpUrls(deps.settings().publicBase);
  await scope.register(formbody);
  scope.setErrorHandler(async (error, request, reply) => {
    request.log.info({ err: error }, 'dev identity provider interaction refused');
    return reply
      .code(400)
      .headers(HTML_HEADERS)
      .send(
        errorPage(urls(), 'invalid_request', 'This sign-in has expired; start again from the dashboard.'),
      );
  });
  const base = `${DEV_IDP_PATH}/interaction/:uid`;
  const show = (reply: FastifyReply, status: number, body: string) =>
    reply.code(status).headers(HTML_HEADERS).send(body);
  const details = async (request: FastifyRequest, reply: FastifyReply) =>
    (await providerOf()).interactionDetails(request.raw, reply.raw);

  scope.get(base, { schema: { hide: true } }, async (request, reply) => {
    const interaction = await details(request, reply);
    if (interaction.prompt.name === 'login')
      return show(reply, 200, loginPage({ uid: interaction.uid, clientName: CLIENT_NAME, urls: urls() }));
    const user = users.find((candidate) => candidate.subject === interaction.session?.accountId);
    const scopes = String(interaction.params.scope ?? 'openid').split(' ');
    return show(
      reply,
      200,
      consentPage({
        uid: interaction.uid,
        clientName: CLIENT_NAME,
        email: user?.email ?? '',
        scopes,
        urls: urls(),
      }),
    );
  });

  scope.post(`${base}/login`, { schema: { hide: true } }, async (request, reply) => {
    const interaction = await details(request, reply);
    const form = (request.body ?? {}) as { email?: unknown; password?: unknown };
    const email = typeof form.email === 'string' ? form.email : '';
    const user = checkPassword(users, email, typeof form.password === 'string' ? form.password : '');
    if (!user || interaction.prompt.name !== 'login')
      return show(
        reply,
        401,
        loginPage({
          uid: interaction.uid,
          clientName: CLIENT_NAME,
          email,
          error: 'Wrong email or password.',
          urls: urls(),
        }),
      );
    const provider = await providerOf();
    const returnTo = await provider.interactionResult(request.raw, reply.raw, {
      login: { accountId: user.subject },
    });
    return reply.redirect(returnTo, 303);
  });

  scope.post(`${base}/confirm`, { schema: { hide: true } }, async (request, reply) => {
    const provider = await providerOf();
    const interaction = await details(request, reply);
    const accountId = interaction.session?.accountId;
    if (interaction.prompt.name !== 'consent' || !accountId) throw new Error('not a consent prompt');
    const grant = interaction.grantId
      ? await provider.Grant.find(interaction.grantId)
      : new provider.Grant({ accountId, clientId: String(interaction.params.client_id) });
    if (!grant) throw new Error('grant not found');
    const missing = interaction.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    const grantId = await grant.save();
    const returnTo = await provider.interactionResult(request.raw, reply.raw, { consent: { grantId } });
    return reply.redirect(returnTo, 303);
  });

  scope.post(`${base}/abort`, { schema: { hide: true } }, async (request, reply) => {
    const provider = await providerOf();
    await details(request, reply);
    const returnTo = await provider.interactionResult(
      request.raw,
      reply.raw,
      { error: 'access_denied', error_description: 'The user did not authorize access to the profile.' },
      { mergeWithLastSubmission: false },
    );
    return reply.redirect(returnTo, 303);
  });
}
