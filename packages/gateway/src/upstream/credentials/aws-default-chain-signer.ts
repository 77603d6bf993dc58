/**
 * AWS SigV4 with the AWS SDK's default credential chain (`fromNodeProviderChain`): environment
 * variables, shared config and profiles, SSO, web identity (EKS IRSA), ECS/EKS container
 * credentials, EC2 instance metadata. The chain is memoized by the SDK: temporary credentials
 * are kept until five minutes before they expire, then replaced (in the background while
 * still valid). The provider is asked on every request, so a refresh takes effect at once.
 *
 * The SDK reads the process environment (and ~/.aws) itself, when credentials are first asked
 * for, never at import; it takes no environment object.
 */
import type { SignatureV4 } from '@smithy/signature-v4';
import { failureDetail } from './failure-detail.ts';
import { awsCredentialProviders } from './libraries.ts';
import { type AwsDefaultChainAuth, DEFAULT_AWS_SERVICE } from './schema.ts';
import { CredentialError, type Signer } from './signer.ts';
import type { SignerDeps } from './signer-deps.ts';
import { type AwsCredentials, createSignatureV4, signSigV4 } from './sigv4.ts';
import { raceAbort } from './token-cache.ts';

export type AwsCredentialProvider = () => Promise<AwsCredentials>;

export interface AwsDefaultChainDeps extends SignerDeps {
  /** Used instead of the default chain (a credential provider the host builds). */
  readonly provider?: AwsCredentialProvider;
}

// Access key ids and session tokens go into headers: printable ASCII only.
const HEADER_SAFE = /^[\x21-\x7e]+$/;

function usable(credentials: AwsCredentials): boolean {
  return (
    HEADER_SAFE.test(credentials.accessKeyId) &&
    credentials.secretAccessKey !== '' &&
    (credentials.sessionToken === undefined || HEADER_SAFE.test(credentials.sessionToken))
  );
}

/** The SDK's chain, the SDK loaded at the first request (libraries.ts) and the chain built once. */
function defaultChain(profile: string | undefined, region: string): AwsCredentialProvider {
  let chain: Promise<AwsCredentialProvider> | undefined;
  return async () => {
    chain ??= awsCredentialProviders().then(({ fromNodeProviderChain }) =>
      fromNodeProviderChain({
        ...(profile === undefined ? {} : { profile }),
        // STS (web identity, assumed roles) is asked in the endpoint's region.
        clientConfig: { region },
      }),
    );
    return (await chain)();
  };
}

export function createAwsDefaultChainSigner(entry: AwsDefaultChainAuth, deps: AwsDefaultChainDeps): Signer {
  const region = entry.region ?? deps.region;
  const service = entry.service ?? DEFAULT_AWS_SERVICE;
  const profile = entry.profile === undefined ? '' : `, profile ${entry.profile}`;
  const label = `aws-default-chain (${service}, ${region ?? 'no region'}${profile})`;
  if (region === undefined)
    throw new CredentialError(`${label}: no region to sign for (set region on the endpoint or in auth)`);
  const provider = deps.provider ?? defaultChain(entry.profile, region);
  const now = deps.now ?? Date.now;
  // One SignatureV4 per credentials object: the memoized chain returns the same object until
  // it refreshes, so the signer (and its derived-key cache) is rebuilt only then.
  let current: { readonly credentials: AwsCredentials; readonly signer: Promise<SignatureV4> } | undefined;
  const obtained = deps.secrets?.obtained();
  const signerFor = (credentials: AwsCredentials): Promise<SignatureV4> => {
    if (current?.credentials !== credentials) {
      current = { credentials, signer: createSignatureV4(credentials, service, region) };
      const { accessKeyId, secretAccessKey, sessionToken } = credentials;
      obtained?.update([accessKeyId, secretAccessKey, sessionToken]);
    }
    return current.signer;
  };
  let closed = false;
  return {
    kind: 'aws-default-chain',
    async sign(request, signal) {
      if (closed) throw new CredentialError(`${label}: signer is closed`);
      signal?.throwIfAborted();
      let credentials: AwsCredentials;
      try {
        credentials = await raceAbort(provider(), signal);
      } catch (error) {
        if (signal?.aborted) throw error;
        throw new CredentialError(`${label}: no credentials could be obtained${failureDetail(error)}`);
      }
      if (!usable(credentials)) throw new CredentialError(`${label}: the credentials obtained are unusable`);
      const signingDate = new Date(now());
      return signSigV4(await signerFor(credentials), request, signingDate, label);
    },
    close: async () => {
      closed = true;
      current = undefined;
    },
  };
}
