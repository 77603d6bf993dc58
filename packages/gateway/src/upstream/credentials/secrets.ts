/**
 * Secret locations of the upstreams file: `env:NAME` (an environment variable) or `path:/file`
 * (a file, e.g. a mounted Kubernetes or Docker secret). Values are read at start-up so a missing
 * secret stops the gateway before it serves; errors name the location and never the value.
 */
import { readFileSync } from 'node:fs';
import { CredentialError } from './signer.ts';

export type SecretEnv = Readonly<Record<string, string | undefined>>;

/** The only accepted forms; the schema enforces the same pattern. */
export const SECRET_LOCATION_PATTERN = '^(env:[A-Za-z_][A-Za-z0-9_]*|path:.+)$';
const LOCATION = new RegExp(SECRET_LOCATION_PATTERN);

/** Reads a secret (trimmed); throws CredentialError when it is absent, unreadable or empty. */
export function readSecret(location: string, env: SecretEnv): string {
  // A malformed location is often a value pasted in by mistake: never echo it.
  if (!LOCATION.test(location)) {
    throw new CredentialError(
      'secret location must be env:NAME or path:/file (the value given is not shown)',
    );
  }
  if (location.startsWith('env:')) {
    const value = env[location.slice(4)]?.trim();
    if (!value) throw new CredentialError(`secret ${location}: environment variable is not set or empty`);
    return value;
  }
  let text: string;
  try {
    text = readFileSync(location.slice(5), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'read error';
    throw new CredentialError(`secret ${location}: file cannot be read (${code})`);
  }
  const value = text.trim();
  if (value === '') throw new CredentialError(`secret ${location}: file is empty`);
  return value;
}

/**
 * Reads a secret that goes into an HTTP header. Line breaks or control characters would make
 * the HTTP client throw at send time, with the header in its message: refuse them here.
 */
export function readHeaderSecret(location: string, env: SecretEnv): string {
  const value = readSecret(location, env);
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(value)) {
    throw new CredentialError(`secret ${location}: contains line breaks or control characters`);
  }
  return value;
}
