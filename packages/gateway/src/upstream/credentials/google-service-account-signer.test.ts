import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject, verify } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createGoogleServiceAccountSigner } from './google-service-account-signer.ts';
import type { GoogleServiceAccountAuth } from './schema.ts';
import { CredentialError } from './signer.ts';
import {
  eventually,
  type LocalServer,
  manualClock,
  type RecordedRequest,
  request,
  sendJson,
  startServer,
} from './test-support.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const keyJson = JSON.stringify({
  type: 'service_account',
  project_id: 'p',
  private_key_id: 'kid-1',
  private_key: privatePem,
  client_email: 'gateway@p.iam.gserviceaccount.com',
  token_uri: 'https://oauth2.googleapis.com/token',
});
const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';
const decode = (part: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/** Checks a JWT-bearer grant the way Google does: RS256 over header.payload with the SA's public key. */
function verifyAssertion(body: string, key: KeyObject): Record<string, unknown> | string {
  const form = new URLSearchParams(body);
  if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return 'bad grant_type';
  const [header, payload, signature] = (form.get('assertion') ?? '').split('.');
  if (header === undefined || payload === undefined || signature === undefined) return 'malformed assertion';
  const ok = verify(
    'RSA-SHA256',
    Buffer.from(`${header}.${payload}`),
    key,
    Buffer.from(signature, 'base64url'),
  );
  if (!ok) return 'bad signature';
  if (decode(header).alg !== 'RS256') return 'bad header';
  return decode(payload);
}

describe('google-service-account signer', () => {
  let server: LocalServer;
  let mode: 'ok' | 'deny' = 'ok';
  let issued = 0;
  const tokenRequests = (): RecordedRequest[] => server.requests.filter((r) => r.url === '/token');

  before(async () => {
    server = await startServer((req, res) => {
      const claims = verifyAssertion(req.body, publicKey);
      if (mode === 'deny' || typeof claims === 'string') {
        sendJson(res, 400, {
          error: 'invalid_grant',
          error_description: typeof claims === 'string' ? claims : 'denied',
        });
        return;
      }
      const now = Math.floor(Date.now() / 1000);
      const valid =
        claims.iss === 'gateway@p.iam.gserviceaccount.com' &&
        claims.scope === CLOUD_PLATFORM &&
        claims.aud === 'https://oauth2.googleapis.com/token' &&
        typeof claims.iat === 'number' &&
        typeof claims.exp === 'number' &&
        Math.abs(claims.iat - now) < 60 &&
        claims.exp - claims.iat <= 3600;
      if (!valid) {
        sendJson(res, 400, {
          error: 'invalid_grant',
          error_description: `bad claims ${JSON.stringify(claims)}`,
        });
        return;
      }
      sendJson(res, 200, { access_token: `ya29.token-${++issued}`, expires_in: 3600, token_type: 'Bearer' });
    });
  });
  after(() => server.close());

  const entry = (): GoogleServiceAccountAuth => ({
    type: 'google-service-account',
    credentials: 'env:GCP_KEY',
    tokenUrl: `${server.origin}/token`,
  });

  test('fetches via tokenUrl, reuses, refreshes before expiry', async () => {
    const clock = manualClock();
    const signer = createGoogleServiceAccountSigner(entry(), { env: { GCP_KEY: keyJson }, now: clock.now });
    const before = tokenRequests().length;
    const first = await signer.sign(
      request({ headers: { 'Content-Type': 'application/json', authorization: 'Bearer caller' } }),
    );
    assert.match(first.authorization ?? '', /^Bearer ya29\.token-\d+$/);
    assert.equal(first['content-type'], 'application/json');
    assert.equal(tokenRequests().length, before + 1);
    assert.deepEqual(await signer.sign(request()), first, 'the cached token is reused');
    assert.equal(tokenRequests().length, before + 1);
    clock.advance(3_600_000 - 4 * 60_000);
    assert.equal(
      (await signer.sign(request())).authorization,
      first.authorization,
      'still valid: used meanwhile',
    );
    await eventually(() => tokenRequests().length === before + 2);
    // The endpoint has seen the refresh; the signer uses the new token once its answer is in.
    let latest = first.authorization;
    for (let i = 0; i < 100 && latest === first.authorization; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      latest = (await signer.sign(request())).authorization;
    }
    assert.notEqual(latest, first.authorization);
    assert.equal(tokenRequests().length, before + 2, 'one refresh, however often it was used meanwhile');
    await signer.close();
  });

  test('concurrent signs share one token request', async () => {
    const signer = createGoogleServiceAccountSigner(entry(), { env: { GCP_KEY: keyJson } });
    const before = tokenRequests().length;
    const results = await Promise.all([1, 2, 3, 4].map(() => signer.sign(request())));
    assert.equal(new Set(results.map((h) => h.authorization)).size, 1);
    assert.equal(tokenRequests().length, before + 1);
  });

  test('reads the key from a file and honours custom scopes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-gsa-'));
    const path = join(dir, 'key.json');
    writeFileSync(path, keyJson);
    const signer = createGoogleServiceAccountSigner(
      { ...entry(), credentials: `path:${path}`, scopes: [CLOUD_PLATFORM] },
      { env: {} },
    );
    assert.match((await signer.sign(request())).authorization ?? '', /^Bearer ya29\./);
  });

  test('a token endpoint failure is a CredentialError without secrets', async () => {
    mode = 'deny';
    try {
      const signer = createGoogleServiceAccountSigner(entry(), { env: { GCP_KEY: keyJson } });
      const error = await signer.sign(request()).then(
        () => assert.fail('expected a rejection'),
        (rejection: unknown) => rejection,
      );
      assert.ok(error instanceof CredentialError);
      assert.match(
        error.message,
        /google-service-account \(env:GCP_KEY, gateway@p\.iam\.gserviceaccount\.com\): token request failed \(HTTP 400, invalid_grant\)/,
      );
      const assertion = new URLSearchParams(tokenRequests().at(-1)?.body).get('assertion') ?? '';
      for (const text of [error.message, String(error.stack), JSON.stringify(error)]) {
        assert.ok(!text.includes('PRIVATE KEY') && !text.includes(assertion.slice(0, 40)));
      }
    } finally {
      mode = 'ok';
    }
  });

  test('an unreachable token endpoint is a CredentialError', async () => {
    const closed = await startServer(() => {});
    await closed.close();
    const signer = createGoogleServiceAccountSigner(
      { ...entry(), tokenUrl: `${closed.origin}/token` },
      { env: { GCP_KEY: keyJson } },
    );
    await assert.rejects(
      signer.sign(request()),
      (error: unknown) => error instanceof CredentialError && /token request failed/.test(error.message),
    );
  });

  test("without tokenUrl the exchange goes to the key's own token_uri, with Google's audience", async () => {
    const ownEndpoint = JSON.stringify({ ...JSON.parse(keyJson), token_uri: `${server.origin}/token` });
    const before = tokenRequests().length;
    const signer = createGoogleServiceAccountSigner(
      { type: 'google-service-account', credentials: 'env:GCP_KEY' },
      { env: { GCP_KEY: ownEndpoint } },
    );
    assert.match((await signer.sign(request())).authorization ?? '', /^Bearer ya29\.token-\d+$/);
    assert.equal(tokenRequests().length, before + 1, "the token came from the key file's token_uri");
    await signer.close();
  });

  test("a key's own token_uri and a different tokenUrl are refused at creation, naming both", () => {
    const ownEndpoint = JSON.stringify({ ...JSON.parse(keyJson), token_uri: `${server.origin}/token` });
    const elsewhere = 'https://oauth2-private.p.googleapis.com/token';
    assert.throws(
      () =>
        createGoogleServiceAccountSigner(
          { type: 'google-service-account', credentials: 'env:GCP_KEY', tokenUrl: elsewhere },
          { env: { GCP_KEY: ownEndpoint } },
        ),
      (error: unknown) =>
        error instanceof CredentialError &&
        error.message ===
          `secret env:GCP_KEY: the key's token_uri ${server.origin}/token differs from tokenUrl ${elsewhere}; keep one of them`,
    );
    // Google's own endpoint in the key (every key Google issues has it) leaves tokenUrl free.
    createGoogleServiceAccountSigner(
      { type: 'google-service-account', credentials: 'env:GCP_KEY', tokenUrl: elsewhere },
      { env: { GCP_KEY: keyJson } },
    );
    const plainHttp = JSON.stringify({ ...JSON.parse(keyJson), token_uri: 'http://tokens.example/token' });
    assert.throws(
      () => createGoogleServiceAccountSigner(entry(), { env: { GCP_KEY: plainHttp } }),
      /secret env:GCP_KEY: token_uri is not an https URL/,
    );
  });

  test('bad keys fail at creation, naming the location only', () => {
    const cases: [string, RegExp][] = [
      ['not json', /not a JSON service account key/],
      [
        JSON.stringify({ type: 'authorized_user', client_email: 'a', private_key: privatePem }),
        /not service_account/,
      ],
      [JSON.stringify({ client_email: 'a' }), /client_email or private_key is missing/],
      [
        JSON.stringify({
          client_email: 'a',
          private_key: '-----BEGIN PRIVATE KEY-----\nbroken-material\n-----END PRIVATE KEY-----',
        }),
        /not a valid PEM/,
      ],
    ];
    for (const [value, message] of cases) {
      assert.throws(
        () => createGoogleServiceAccountSigner(entry(), { env: { GCP_KEY: value } }),
        (error: unknown) =>
          error instanceof CredentialError &&
          message.test(error.message) &&
          error.message.includes('env:GCP_KEY') &&
          !error.message.includes('broken-material'),
      );
    }
    assert.throws(
      () => createGoogleServiceAccountSigner(entry(), { env: {} }),
      /env:GCP_KEY: environment variable is not set/,
    );
  });
});
