import { ownHeaders } from './request-headers.ts';
import type { NoneAuth } from './schema.ts';
import type { Signer } from './signer.ts';
import type { SignerDeps } from './signer-deps.ts';

/** No credential (simulator, local servers); stray credential headers are still dropped. */
export function createNoneSigner(_entry: NoneAuth, _deps: SignerDeps): Signer {
  return {
    kind: 'none',
    sign: async (request) => ownHeaders(request),
    close: async () => {},
  };
}
