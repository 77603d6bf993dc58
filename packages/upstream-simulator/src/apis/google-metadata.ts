/**
 * The GCE metadata server's token endpoint, as Google Compute Engine, GKE (workload identity)
 * and Cloud Run run it at 169.254.169.254: a gateway using application default credentials
 * with `GCE_METADATA_HOST` pointed here gets access tokens the Vertex API modules accept,
 * from the same pool as the OAuth token endpoint's. Only requests that carry
 * `Metadata-Flavor: Google` are answered, and every answer carries it back.
 */
import { randomBytes } from 'node:crypto';
import type { SimContext, SimExchange } from './types.ts';

export const GCE_METADATA_PREFIX = '/computeMetadata/v1/';
const LIFETIME_S = 3600;
const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';

function send(exchange: SimExchange, status: number, body: string, type = 'application/text'): void {
  exchange.res.writeHead(status, {
    'metadata-flavor': 'Google',
    'content-type': type,
    'content-length': Buffer.byteLength(body),
  });
  exchange.res.end(body);
}

/** Issues a token for the instance's service account (`scopes`, when given, must allow Vertex). */
function token(context: SimContext, exchange: SimExchange): void {
  const scopes = exchange.query.get('scopes');
  if (scopes !== null && !scopes.split(',').includes(CLOUD_PLATFORM)) {
    send(exchange, 400, 'The requested scopes do not include cloud-platform.');
    return;
  }
  const accessToken = `ya29.sim-gce-${randomBytes(24).toString('base64url')}`;
  context.googleTokens.set(accessToken, Date.now() + LIFETIME_S * 1000);
  const body = JSON.stringify({ access_token: accessToken, expires_in: LIFETIME_S, token_type: 'Bearer' });
  send(exchange, 200, body, 'application/json');
}

export function handleGceMetadata(context: SimContext, exchange: SimExchange): void {
  if (exchange.req.headers['metadata-flavor'] !== 'Google') {
    send(exchange, 403, 'Missing Metadata-Flavor:Google header.');
    return;
  }
  const property = exchange.path.slice(GCE_METADATA_PREFIX.length).replace(/\/$/, '');
  const account = context.credentials.googleServiceAccount;
  switch (property) {
    case 'instance':
      return send(exchange, 200, 'attributes/\nservice-accounts/\n');
    case 'project/project-id':
      return send(exchange, 200, account.project_id);
    case 'instance/service-accounts/default/email':
      return send(exchange, 200, account.client_email);
    case 'instance/service-accounts/default/token':
      return token(context, exchange);
    default:
      return send(exchange, 404, 'Not Found');
  }
}
