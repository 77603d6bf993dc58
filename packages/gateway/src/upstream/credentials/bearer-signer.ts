import { withCredentialHeader } from './request-headers.ts';
import type { BearerAuth } from './schema.ts';
import { readHeaderSecret } from './secrets.ts';
import type { Signer } from './signer.ts';
import type { SignerDeps } from './signer-deps.ts';

/** A static token as `Authorization: Bearer`; the token is read once, at creation. */
export function createBearerSigner(entry: BearerAuth, deps: SignerDeps): Signer {
  const token = readHeaderSecret(entry.token, deps.env);
  deps.secrets?.add(token);
  const authorization = `Bearer ${token}`;
  return {
    kind: 'bearer',
    sign: async (request) => withCredentialHeader(request, 'authorization', authorization),
    close: async () => {},
  };
}
