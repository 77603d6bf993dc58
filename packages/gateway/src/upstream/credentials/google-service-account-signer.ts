/**
 * Google service-account OAuth2 (Vertex AI): google-auth-library's JWT client signs the RS256
 * assertion and exchanges it for an access token, sent as `Authorization: Bearer`. Tokens are
 * cached and refreshed early by TokenCache. The key is read and checked at creation, the library
 * loaded at the first token request (libraries.ts).
 *
 * The exchange goes where Google's own libraries for Python, Go and Java send it: the key file's
 * `token_uri` (a private or sovereign endpoint's key names its own). `tokenUrl` in the upstreams
 * file redirects it too; a key whose `token_uri` is its own and a `tokenUrl` naming another
 * endpoint contradict each other and are refused at creation.
 */
import { createPrivateKey } from 'node:crypto';
import type { gaxios } from 'google-auth-library';
import { failureDetail } from './failure-detail.ts';
import { googleAuth } from './libraries.ts';
import { withCredentialHeader } from './request-headers.ts';
import { DEFAULT_GOOGLE_SCOPES, type GoogleServiceAccountAuth, HTTPS_OR_LOOPBACK_URL } from './schema.ts';
import { readSecret } from './secrets.ts';
import { CredentialError, type Signer } from './signer.ts';
import type { SignerDeps } from './signer-deps.ts';
import { type FreshToken, TokenCache } from './token-cache.ts';

/**
 * The Node library always posts to this URL (unlike the other languages' libraries it ignores a
 * key's `token_uri`) and uses it as the assertion's audience; a redirect to another endpoint
 * keeps that audience, as google-auth for Python does, which is what Google's endpoints
 * (including private ones) verify.
 */
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const TOKEN_URL = new RegExp(HTTPS_OR_LOOPBACK_URL);

interface ServiceAccountKey {
  readonly clientEmail: string;
  readonly privateKey: string;
  readonly privateKeyId: string | undefined;
  /** The key's own token endpoint; undefined when it names none or Google's. */
  readonly tokenUri: string | undefined;
}

function stringField(json: Record<string, unknown>, name: string): string | undefined {
  const value = json[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Parses and checks the key at start-up, so a bad key file stops the gateway early. */
function parseKey(text: string, location: string): ServiceAccountKey {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CredentialError(`secret ${location}: not a JSON service account key`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new CredentialError(`secret ${location}: not a JSON service account key`);
  }
  const fields = json as Record<string, unknown>;
  const type = stringField(fields, 'type');
  if (type !== undefined && type !== 'service_account') {
    throw new CredentialError(`secret ${location}: key type is not service_account`);
  }
  const clientEmail = stringField(fields, 'client_email');
  const privateKey = stringField(fields, 'private_key');
  if (clientEmail === undefined || privateKey === undefined) {
    throw new CredentialError(`secret ${location}: client_email or private_key is missing`);
  }
  try {
    createPrivateKey(privateKey);
  } catch {
    throw new CredentialError(`secret ${location}: private_key is not a valid PEM private key`);
  }
  const tokenUri = stringField(fields, 'token_uri');
  if (tokenUri !== undefined && !TOKEN_URL.test(tokenUri))
    throw new CredentialError(`secret ${location}: token_uri is not an https URL`);
  return {
    clientEmail,
    privateKey,
    privateKeyId: stringField(fields, 'private_key_id'),
    tokenUri: tokenUri === GOOGLE_TOKEN_URL ? undefined : tokenUri,
  };
}

/** Where the exchange is posted: `tokenUrl`, else the key's own `token_uri`, else Google's. */
function tokenEndpoint(entry: GoogleServiceAccountAuth, key: ServiceAccountKey): string {
  const { tokenUrl } = entry;
  if (key.tokenUri !== undefined && tokenUrl !== undefined && tokenUrl !== key.tokenUri)
    throw new CredentialError(
      `secret ${entry.credentials}: the key's token_uri ${key.tokenUri} differs from tokenUrl ${tokenUrl}; keep one of them`,
    );
  return tokenUrl ?? key.tokenUri ?? GOOGLE_TOKEN_URL;
}

/**
 * The library's supported injection point is the transporter (a Gaxios instance): one whose
 * request interceptor sends token requests to `tokenUrl` instead of Google's endpoint.
 */
async function redirectingTransporter(tokenUrl: string): Promise<gaxios.Gaxios> {
  const { gaxios } = await googleAuth();
  const transporter = new gaxios.Gaxios();
  transporter.interceptors.request.add({
    resolved: async (options) => {
      if (options.url.href !== GOOGLE_TOKEN_URL) return options;
      return { ...options, url: new URL(tokenUrl) };
    },
  });
  return transporter;
}

async function fetchToken(
  key: ServiceAccountKey,
  scopes: string[],
  transporter: Promise<gaxios.Gaxios> | undefined,
  label: string,
): Promise<FreshToken> {
  const { JWT } = await googleAuth();
  // A new client per refresh: the library keeps its own cache on the wall clock, which would
  // hand back the same token when this cache (on an injectable clock) asks for a new one.
  const client = new JWT({
    email: key.clientEmail,
    key: key.privateKey,
    ...(key.privateKeyId === undefined ? {} : { keyId: key.privateKeyId }),
    scopes,
    ...(transporter === undefined ? {} : { transporter: await transporter }),
  });
  const startedAt = Date.now();
  let credentials;
  try {
    credentials = await client.authorize();
  } catch (error) {
    throw new CredentialError(`${label}: token request failed${failureDetail(error)}`);
  }
  const token = credentials.access_token;
  if (typeof token !== 'string' || token === '') {
    throw new CredentialError(`${label}: the token endpoint returned no access_token`);
  }
  return { token, lifetimeMs: (credentials.expiry_date ?? startedAt) - startedAt };
}

export function createGoogleServiceAccountSigner(entry: GoogleServiceAccountAuth, deps: SignerDeps): Signer {
  const key = parseKey(readSecret(entry.credentials, deps.env), entry.credentials);
  deps.secrets?.add(key.privateKey);
  const scopes = [...(entry.scopes ?? DEFAULT_GOOGLE_SCOPES)];
  const tokenUrl = tokenEndpoint(entry, key);
  // One transporter for the signer's lifetime, made at the first token request.
  let transporter: Promise<gaxios.Gaxios> | undefined;
  const transporterOnce = () =>
    tokenUrl === GOOGLE_TOKEN_URL ? undefined : (transporter ??= redirectingTransporter(tokenUrl));
  const label = `google-service-account (${entry.credentials}, ${key.clientEmail})`;
  const cache = new TokenCache({
    label,
    now: deps.now ?? Date.now,
    fetch: () => fetchToken(key, scopes, transporterOnce(), label),
    ...(deps.secrets ? { obtained: deps.secrets.obtained() } : {}),
  });
  return {
    kind: 'google-service-account',
    async sign(request, signal) {
      return withCredentialHeader(request, 'authorization', `Bearer ${await cache.get(signal)}`);
    },
    close: async () => cache.close(),
  };
}
