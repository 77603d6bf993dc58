/**
 * The oidc-provider instance behind /dev-idp: one confidential client (the dashboard), the dev
 * users as accounts, a fresh RSA signing key and cookie key per process, state in memory
 * (memory-adapter.ts). It is a development tool: restarting it signs everybody out of it and asks
 * for consent again.
 */
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import type { Configuration, default as Provider, KoaContextWithOIDC } from 'oidc-provider';
import { memoryAdapter } from './memory-adapter.ts';
import { errorPage, logoutPage, PAGE_CSP, type PageUrls, signedOutPage } from './views.ts';
import type { DevUser } from './users.ts';

export interface DevClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUri: string;
  readonly postLogoutRedirectUri: string;
}

export const DEV_IDP_PATH = '/dev-idp';

/** The provider's URLs under the gateway's public base URL: every URL it publishes starts with `issuer`. */
export function devIdpUrls(publicBase: string): PageUrls {
  return { publicBase, issuer: `${publicBase}${DEV_IDP_PATH}` };
}

function send(ctx: KoaContextWithOIDC, body: string): void {
  ctx.type = 'html';
  ctx.set('content-security-policy', PAGE_CSP);
  ctx.body = body;
}

/**
 * `publicBase` is GATEWAY_PUBLIC_URL (or where the gateway listens). The provider publishes
 * URLs from the request it serves; index.ts presents every request as addressed to publicBase
 * (forwarding headers from the configuration, trusted through `proxy`), so discovery, redirects
 * and forms are public URLs also behind a TLS-terminating proxy.
 */
export async function createDevProvider(
  publicBase: string,
  client: DevClient,
  users: readonly DevUser[],
): Promise<Provider> {
  const urls = devIdpUrls(publicBase);
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = {
    ...(await exportJWK(privateKey)),
    alg: 'RS256',
    use: 'sig',
    kid: randomBytes(8).toString('hex'),
  };
  const configuration: Configuration = {
    adapter: memoryAdapter(),
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: [client.redirectUri],
        post_logout_redirect_uris: [client.postLogoutRedirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [jwk as never] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // The ID token carries the email, as most real providers' do, so no userinfo call is needed.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    // Seconds; the provider's state lives in memory, so none of it outlives a restart anyway.
    ttl: { Interaction: 600, Session: 8 * 3600, Grant: 8 * 3600, AccessToken: 600, IdToken: 600 },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx, form) => send(ctx, logoutPage(urls, form)),
        postLogoutSuccessSource: (ctx) => send(ctx, signedOutPage(urls)),
      },
    },
    interactions: { url: (_ctx, interaction) => `${urls.issuer}/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => {
      const user = users.find((candidate) => candidate.subject === sub);
      if (!user) return undefined;
      return {
        accountId: user.subject,
        claims: () => ({ sub: user.subject, email: user.email, email_verified: true, name: user.name }),
      };
    },
    renderError: (ctx, out) =>
      send(ctx, errorPage(urls, String(out.error), String(out.error_description ?? ''))),
  };
  // Loaded with the first /dev-idp request: a gateway that never signs anyone in through the
  // development provider does not carry oidc-provider and Koa (~13 MiB resident).
  const { default: OidcProvider } = await import('oidc-provider');
  const provider = new OidcProvider(urls.issuer, configuration);
  provider.proxy = true;
  return provider;
}
