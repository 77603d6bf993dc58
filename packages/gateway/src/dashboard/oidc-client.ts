/**
 * The dashboard as an OpenID Connect relying party: authorization code flow with PKCE (S256),
 * `state` and `nonce`, all checked by openid-client. Discovery happens on the first sign-in
 * (the issuer may be this very process, listening only after the app is built) and is retried
 * after a failure.
 */
import * as oidc from 'openid-client';
import type { PendingLogin } from './session.ts';

export interface OidcSettings {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes: string;
  readonly redirectUri: string;
  /** Plain-HTTP issuers are refused except on loopback or for the in-process dev provider. */
  readonly allowHttp: boolean;
}

export interface VerifiedSignIn {
  readonly issuer: string;
  readonly subject: string;
  readonly email: string | undefined;
  readonly emailVerified: boolean;
  readonly idToken: string | undefined;
}

/** The provider refused or the answer did not verify; `message` is safe to show. */
export class SignInError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SignInError';
  }
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export function mayUseHttp(issuer: string, devIdp: boolean): boolean {
  const url = new URL(issuer);
  return url.protocol === 'https:' || devIdp || LOOPBACK.has(url.hostname);
}

function describe(error: unknown): string {
  if (error instanceof oidc.AuthorizationResponseError)
    return `the identity provider answered ${error.error}${error.error_description ? `: ${error.error_description}` : ''}`;
  if (error instanceof oidc.ResponseBodyError)
    return `the identity provider refused the code (${error.error})`;
  if (error instanceof oidc.ClientError)
    return `the identity provider's answer did not verify (${error.code ?? 'error'})`;
  return 'the identity provider could not be reached';
}

export type CustomFetch = oidc.CustomFetch;

/** `fetch`, when given, makes every request to the provider (discovery, token, keys, userinfo). */
export function createOidcClient(settings: () => OidcSettings, fetch?: CustomFetch) {
  let configuration: Promise<oidc.Configuration> | undefined;

  function discover(): Promise<oidc.Configuration> {
    const s = settings();
    configuration ??= oidc
      .discovery(new URL(s.issuer), s.clientId, s.clientSecret, undefined, {
        ...(s.allowHttp ? { execute: [oidc.allowInsecureRequests] } : {}),
        ...(fetch ? { [oidc.customFetch]: fetch } : {}),
        timeout: 10,
      })
      .catch((error: unknown) => {
        configuration = undefined;
        throw new SignInError(describe(error), { cause: error });
      });
    return configuration;
  }

  /** Where to send the browser, and what the callback must check. */
  async function begin(returnTo: string): Promise<{ url: URL; login: PendingLogin }> {
    const config = await discover();
    const s = settings();
    const login = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
      returnTo,
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: s.redirectUri,
      scope: s.scopes,
      state: login.state,
      nonce: login.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(login.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url, login };
  }

  /** Exchanges the code from the callback's query string and returns who signed in. */
  async function complete(query: string, login: PendingLogin): Promise<VerifiedSignIn> {
    const config = await discover();
    const current = new URL(settings().redirectUri);
    current.search = query;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: login.codeVerifier,
        expectedState: login.state,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new SignInError('the identity provider sent no ID token');
      let { email, email_verified: verified } = claims;
      // Providers that follow the spec strictly send profile claims only from userinfo.
      if (typeof email !== 'string') {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
        ({ email, email_verified: verified } = info);
      }
      return {
        issuer: claims.iss,
        subject: claims.sub,
        email: typeof email === 'string' ? email : undefined,
        emailVerified: verified === true,
        idToken: tokens.id_token,
      };
    } catch (error) {
      if (error instanceof SignInError) throw error;
      throw new SignInError(describe(error), { cause: error });
    }
  }

  /** The provider's sign-out page, when it has one (RP-initiated logout). */
  async function endSessionUrl(idToken: string | null, postLogoutUri: string): Promise<URL | undefined> {
    const config = await discover().catch(() => undefined);
    if (!config?.serverMetadata().end_session_endpoint) return undefined;
    return oidc.buildEndSessionUrl(config, {
      post_logout_redirect_uri: postLogoutUri,
      ...(idToken ? { id_token_hint: idToken } : { client_id: settings().clientId }),
    });
  }

  return { begin, complete, endSessionUrl };
}

export type OidcClient = ReturnType<typeof createOidcClient>;
