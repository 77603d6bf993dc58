/**
 * Google's OAuth 2.0 token endpoint for service accounts, as the simulator runs it: a signed
 * JWT assertion (RS256, issuer = the service account, audience = this endpoint, at most an
 * hour) is exchanged for an access token that the Vertex API modules then require.
 */
import { randomBytes } from 'node:crypto';
import { importSPKI, jwtVerify } from 'jose';
import { sendJson } from '../respond.ts';
import { GCE_METADATA_PREFIX, handleGceMetadata } from './google-metadata.ts';
import type { SimApi, SimContext, SimExchange } from './types.ts';

export const GOOGLE_TOKEN_PATH = '/google/token';
const GOOGLE_TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';
const LIFETIME_S = 3600;
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

function oauthError(exchange: SimExchange, status: number, error: string, description: string): void {
  sendJson(exchange.res, status, JSON.stringify({ error, error_description: description }));
}

async function verifiedAssertion(context: SimContext, assertion: string): Promise<boolean> {
  try {
    const key = await importSPKI(context.credentials.googlePublicKey, 'RS256');
    const { payload } = await jwtVerify(assertion, key, {
      issuer: context.credentials.googleServiceAccount.client_email,
      // Google checks for its own token URL, wherever the assertion is posted (private
      // endpoints too); clients that address this endpoint by name may use its URL instead.
      audience: [GOOGLE_TOKEN_AUDIENCE, `${context.origin}${GOOGLE_TOKEN_PATH}`],
      algorithms: ['RS256'],
    });
    const lifetime = (payload.exp ?? 0) - (payload.iat ?? 0);
    return (
      typeof payload.scope === 'string' && payload.scope.includes('cloud-platform') && lifetime <= LIFETIME_S
    );
  } catch {
    return false;
  }
}

/** Google's token issuers: the OAuth endpoint, and the metadata server (not recorded either). */
export const googleTokenApi: SimApi = {
  name: 'google-oauth',
  matches: (method, path) =>
    (method === 'POST' && path === GOOGLE_TOKEN_PATH) ||
    (method === 'GET' && path.startsWith(GCE_METADATA_PREFIX)),
  async handle(context, exchange) {
    if (exchange.method === 'GET') return handleGceMetadata(context, exchange);
    const form = new URLSearchParams(exchange.rawBody.toString('utf8'));
    if (form.get('grant_type') !== JWT_BEARER) {
      oauthError(exchange, 400, 'unsupported_grant_type', 'Invalid grant_type.');
      return;
    }
    if (!(await verifiedAssertion(context, form.get('assertion') ?? ''))) {
      oauthError(exchange, 400, 'invalid_grant', 'Invalid JWT Signature.');
      return;
    }
    const token = `ya29.sim-${randomBytes(24).toString('base64url')}`;
    context.googleTokens.set(token, Date.now() + LIFETIME_S * 1000);
    sendJson(
      exchange.res,
      200,
      JSON.stringify({ access_token: token, expires_in: LIFETIME_S, token_type: 'Bearer' }),
    );
  },
};

/**
 * Checks `Authorization: Bearer <token>` against the tokens issued here; answers 401 in
 * Google's error shape and returns false when it is missing, unknown or expired.
 */
export function requireGoogleToken(context: SimContext, exchange: SimExchange): boolean {
  const header = exchange.req.headers.authorization;
  const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : '';
  const expires = context.googleTokens.get(token);
  if (expires !== undefined && expires > Date.now()) return true;
  const error = {
    code: 401,
    message:
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
    status: 'UNAUTHENTICATED',
  };
  sendJson(exchange.res, 401, JSON.stringify({ error }));
  return false;
}
