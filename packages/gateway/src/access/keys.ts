import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  type CryptoKey,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
} from 'jose';

const ALGORITHMS = ['EdDSA', 'ES256'] as const;
type Algorithm = (typeof ALGORITHMS)[number];

type KeyLike = CryptoKey | Uint8Array;

export interface SigningKeys {
  /** The key new tokens are signed with: the first of the file. */
  readonly current: { readonly kid: string; readonly alg: Algorithm; readonly key: KeyLike };
  /** Every key of the file by `kid` (public part): tokens signed before a rotation stay valid. */
  readonly verifiers: ReadonlyMap<string, { readonly alg: Algorithm; readonly key: KeyLike }>;
}

/** Where the key set lives: the configured path, else `<dataDir>/signing-keys.json`. */
export function signingKeyLocation(dataDir: string, configuredPath: string | undefined) {
  return configuredPath
    ? { path: configuredPath, generate: false }
    : { path: join(dataDir, 'signing-keys.json'), generate: true };
}

async function generateKeyFile(path: string): Promise<void> {
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = (await calculateJwkThumbprint(jwk)).slice(0, 16);
  const content = `${JSON.stringify({ keys: [{ ...jwk, kid, alg: 'EdDSA', use: 'sig' }] }, null, 2)}\n`;
  mkdirSync(dirname(path), { recursive: true });
  // Written beside the target then hard-linked into place: link fails if another process
  // (a parallel test, the CLI) won the race, and then everybody uses the winner's key.
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, content, { mode: 0o600 });
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

function readKeyFile(path: string): JWK[] {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as { keys?: unknown };
  if (!Array.isArray(parsed.keys) || parsed.keys.length === 0)
    throw new Error(`signing key file ${path} has no "keys" array`);
  return parsed.keys as JWK[];
}

async function importKey(jwk: JWK, path: string) {
  const alg = jwk.alg as Algorithm;
  if (!ALGORITHMS.includes(alg) || typeof jwk.kid !== 'string' || jwk.d === undefined)
    throw new Error(`signing key file ${path}: every key needs kid, a private part and alg EdDSA or ES256`);
  const { d: _private, ...publicJwk } = jwk;
  return {
    kid: jwk.kid,
    alg,
    privateKey: await importJWK(jwk, alg),
    publicKey: await importJWK(publicJwk, alg),
  };
}

/**
 * Loads the key set; on the default location it is generated on first use. A configured
 * path must exist (deployments with several instances share one key set).
 */
export async function loadSigningKeys(location: { path: string; generate: boolean }): Promise<SigningKeys> {
  let jwks: JWK[];
  try {
    jwks = readKeyFile(location.path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (!location.generate)
      throw new Error(
        `signing key file ${location.path} (access.signingKeyPath, GATEWAY_SIGNING_KEY_PATH) does not exist`,
        { cause: error },
      );
    await generateKeyFile(location.path);
    jwks = readKeyFile(location.path);
  }
  const keys = await Promise.all(jwks.map((jwk) => importKey(jwk, location.path)));
  const first = keys[0];
  if (!first) throw new Error(`signing key file ${location.path} is empty`);
  return {
    current: { kid: first.kid, alg: first.alg, key: first.privateKey },
    verifiers: new Map(keys.map((k) => [k.kid, { alg: k.alg, key: k.publicKey }])),
  };
}
