/**
 * Microsoft Entra ID tokens for Azure OpenAI: @azure/identity's ClientSecretCredential, sent
 * as `Authorization: Bearer` (never together with `api-key`). Tokens are cached and refreshed
 * early by TokenCache, one cache per signer (one scope); the ambient Azure signers share this.
 * The secret is read at creation; @azure/identity is loaded and the credential built at the
 * first token request (libraries.ts).
 */
import type { ClientSecretCredentialOptions, TokenCredential } from '@azure/identity';
import { failureDetail } from './failure-detail.ts';
import { azureIdentity } from './libraries.ts';
import { withCredentialHeader } from './request-headers.ts';
import { type AzureEntraAuth, DEFAULT_AZURE_AUTHORITY_HOST, DEFAULT_AZURE_SCOPE } from './schema.ts';
import { readSecret } from './secrets.ts';
import { CredentialError, type Signer } from './signer.ts';
import type { SignerDeps } from './signer-deps.ts';
import { type FreshToken, TokenCache } from './token-cache.ts';

export interface AzureEntraDeps extends SignerDeps {
  /** Used instead of a ClientSecretCredential (tests, or a credential the host builds). */
  readonly credential?: TokenCredential;
  /**
   * HTTP client of the ClientSecretCredential. @azure/identity only accepts https authority
   * hosts, so tests route an https host to a local server through this.
   */
  readonly httpClient?: ClientSecretCredentialOptions['httpClient'];
}

/** A credential, built at its first use. */
export type CredentialSource = () => Promise<TokenCredential>;

function clientSecretCredential(entry: AzureEntraAuth, deps: AzureEntraDeps): CredentialSource {
  const secret = readSecret(entry.clientSecret, deps.env);
  deps.secrets?.add(secret);
  const options: ClientSecretCredentialOptions = {
    // Always explicit: left out, the library would read AZURE_AUTHORITY_HOST from process.env.
    authorityHost: entry.authorityHost ?? DEFAULT_AZURE_AUTHORITY_HOST,
    // Instance discovery asks Microsoft's public cloud to vouch for the host; a host set in
    // the upstreams file (sovereign cloud, Azure Stack, test server) is trusted by configuration.
    disableInstanceDiscovery: entry.authorityHost !== undefined,
    ...(deps.httpClient === undefined ? {} : { httpClient: deps.httpClient }),
  };
  return async () => {
    const { ClientSecretCredential } = await azureIdentity();
    return new ClientSecretCredential(entry.tenantId, entry.clientId, secret, options);
  };
}

async function fetchToken(credential: CredentialSource, scope: string, label: string): Promise<FreshToken> {
  let token;
  try {
    token = await (await credential()).getToken(scope);
  } catch (error) {
    if (error instanceof CredentialError) throw error;
    throw new CredentialError(`${label}: token request failed${failureDetail(error)}`);
  }
  if (token === null || token.token === '') throw new CredentialError(`${label}: no token was returned`);
  // The library's timestamps are on the wall clock; the cache wants durations.
  const wallNow = Date.now();
  return {
    token: token.token,
    lifetimeMs: token.expiresOnTimestamp - wallNow,
    ...(token.refreshAfterTimestamp === undefined
      ? {}
      : { refreshInMs: token.refreshAfterTimestamp - wallNow }),
  };
}

export function createAzureEntraSigner(entry: AzureEntraAuth, deps: AzureEntraDeps): Signer {
  const given = deps.credential;
  const credential = given === undefined ? clientSecretCredential(entry, deps) : async () => given;
  const label = `azure-entra (tenant ${entry.tenantId}, client ${entry.clientId}, ${entry.clientSecret})`;
  return createTokenCredentialSigner(
    'azure-entra',
    label,
    credential,
    entry.scope ?? DEFAULT_AZURE_SCOPE,
    deps,
  );
}

/** A signer sending a TokenCredential's tokens for one scope as `Authorization: Bearer`. */
export function createTokenCredentialSigner(
  kind: string,
  label: string,
  source: CredentialSource,
  scope: string,
  deps: SignerDeps,
): Signer {
  // Built once; a failed build (e.g. an unusable environment) is tried again at the next refresh.
  let built: Promise<TokenCredential> | undefined;
  const credential = () => {
    built ??= source().catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    return built;
  };
  const cache = new TokenCache({
    label,
    now: deps.now ?? Date.now,
    fetch: () => fetchToken(credential, scope, label),
    ...(deps.secrets ? { obtained: deps.secrets.obtained() } : {}),
  });
  return {
    kind,
    async sign(request, signal) {
      return withCredentialHeader(request, 'authorization', `Bearer ${await cache.get(signal)}`);
    },
    close: async () => cache.close(),
  };
}
