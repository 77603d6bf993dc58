/**
 * Microsoft Entra ID tokens for Azure OpenAI: @azure/identity's ClientSecretCredential, sent
 * as `Authorization: Bearer` (never together with `api-key`). Tokens are cached and refreshed
 * early by TokenCache, one cache per signer (one scope); the ambient Azure signers share this.
 */
import {
  ClientSecretCredential,
  type ClientSecretCredentialOptions,
  type TokenCredential,
} from '@azure/identity';
import { failureDetail } from './failure-detail.ts';
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

function clientSecretCredential(entry: AzureEntraAuth, deps: AzureEntraDeps): TokenCredential {
  const secret = readSecret(entry.clientSecret, deps.env);
  return new ClientSecretCredential(entry.tenantId, entry.clientId, secret, {
    // Always explicit: left out, the library would read AZURE_AUTHORITY_HOST from process.env.
    authorityHost: entry.authorityHost ?? DEFAULT_AZURE_AUTHORITY_HOST,
    // Instance discovery asks Microsoft's public cloud to vouch for the host; a host set in
    // the upstreams file (sovereign cloud, Azure Stack, test server) is trusted by configuration.
    disableInstanceDiscovery: entry.authorityHost !== undefined,
    ...(deps.httpClient === undefined ? {} : { httpClient: deps.httpClient }),
  });
}

async function fetchToken(credential: TokenCredential, scope: string, label: string): Promise<FreshToken> {
  let token;
  try {
    token = await credential.getToken(scope);
  } catch (error) {
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
  const credential = deps.credential ?? clientSecretCredential(entry, deps);
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
  credential: TokenCredential,
  scope: string,
  deps: SignerDeps,
): Signer {
  const cache = new TokenCache({
    label,
    now: deps.now ?? Date.now,
    fetch: () => fetchToken(credential, scope, label),
  });
  return {
    kind,
    async sign(request, signal) {
      return withCredentialHeader(request, 'authorization', `Bearer ${await cache.get(signal)}`);
    },
    close: async () => cache.close(),
  };
}
