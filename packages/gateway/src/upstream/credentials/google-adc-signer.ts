/**
 * Google application default credentials (Vertex AI) with google-auth-library's GoogleAuth:
 * GOOGLE_APPLICATION_CREDENTIALS (a service account key or a workload identity federation
 * file), gcloud user credentials, then the GCE/GKE/Cloud Run metadata server. The library
 * caches the access token and refreshes it five minutes before expiry; it is asked on every
 * request and sent as `Authorization: Bearer`.
 *
 * The library reads the process environment (and gcloud's config directory) itself, when a
 * token is first asked for, never at import; it takes no environment object. The library itself
 * is loaded at the first request (libraries.ts).
 */
import type { GoogleAuth } from 'google-auth-library';
import { failureDetail } from './failure-detail.ts';
import { googleAuth } from './libraries.ts';
import { withCredentialHeader } from './request-headers.ts';
import { DEFAULT_GOOGLE_SCOPES, type GoogleAdcAuth } from './schema.ts';
import { CredentialError, type Signer } from './signer.ts';
import type { SignerDeps } from './signer-deps.ts';
import { raceAbort } from './token-cache.ts';

// Tokens go into an Authorization header: printable ASCII only.
const TOKEN_CHARS = /^[\x21-\x7e]+$/;

export function createGoogleAdcSigner(entry: GoogleAdcAuth, deps: SignerDeps): Signer {
  const scopes = [...(entry.scopes ?? DEFAULT_GOOGLE_SCOPES)];
  const label = 'google-adc (application default credentials)';
  // Without a project, the library looks one up before its first token (environment, the
  // `gcloud` command if installed, the metadata server): the endpoint's own is the answer.
  const projectId = deps.project;
  const options = { scopes, ...(projectId === undefined ? {} : { projectId }) };
  let auth: GoogleAuth | undefined;
  let closed = false;
  const obtained = deps.secrets?.obtained();
  let lastToken: string | undefined;
  const token = async (): Promise<string> => {
    const library = await googleAuth();
    auth ??= new library.GoogleAuth(options);
    const current = auth;
    try {
      const value = await current.getAccessToken();
      if (typeof value === 'string' && TOKEN_CHARS.test(value)) {
        // The library hands back its cached token: only a new one is told to the redactor.
        if (value !== lastToken) obtained?.update([value]);
        lastToken = value;
        return value;
      }
    } catch (error) {
      // GoogleAuth (and gcp-metadata, per process) keep what they detected, e.g. that no
      // metadata server answered: start afresh so that the next request looks again.
      if (auth === current) {
        auth = undefined;
        library.gcpMetadata.resetIsAvailableCache();
      }
      throw new CredentialError(`${label}: no access token could be obtained${failureDetail(error)}`);
    }
    throw new CredentialError(`${label}: the credential source returned an unusable token`);
  };
  return {
    kind: 'google-adc',
    async sign(request, signal) {
      if (closed) throw new CredentialError(`${label}: signer is closed`);
      signal?.throwIfAborted();
      return withCredentialHeader(request, 'authorization', `Bearer ${await raceAbort(token(), signal)}`);
    },
    close: async () => {
      closed = true;
    },
  };
}
