import { withCredentialHeader } from './request-headers.ts';
import type { ApiKeyAuth } from './schema.ts';
import { readHeaderSecret } from './secrets.ts';
import type { Signer } from './signer.ts';
import type { SignerDeps } from './signer-deps.ts';

/** A static key in a provider-specific header; the key is read once, at creation. */
export function createApiKeySigner(entry: ApiKeyAuth, deps: SignerDeps): Signer {
  const key = readHeaderSecret(entry.key, deps.env);
  deps.secrets?.add(key);
  return {
    kind: 'api-key',
    sign: async (request) => withCredentialHeader(request, entry.header, key),
    close: async () => {},
  };
}
