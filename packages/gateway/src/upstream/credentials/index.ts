/**
 * Upstream credentials: one Signer per endpoint, created at start-up (secrets are read and
 * checked then) and asked for headers just before each request is sent.
 */
import { createApiKeySigner } from './api-key-signer.ts';
import { createAwsDefaultChainSigner } from './aws-default-chain-signer.ts';
import { createAwsSigv4Signer } from './aws-sigv4-signer.ts';
import { createAzureDefaultSigner, createAzureManagedIdentitySigner } from './azure-ambient-signer.ts';
import { createAzureEntraSigner } from './azure-entra-signer.ts';
import { createBearerSigner } from './bearer-signer.ts';
import { createGoogleAdcSigner } from './google-adc-signer.ts';
import { createGoogleServiceAccountSigner } from './google-service-account-signer.ts';
import { createNoneSigner } from './none-signer.ts';
import type { AuthEntry } from './schema.ts';
import type { Signer } from './signer.ts';
import type { SignerDeps } from './signer-deps.ts';

/**
 * The signer of an auth entry; throws CredentialError when a secret is missing or invalid.
 * Ambient credentials (aws-default-chain, google-adc, azure-*) are looked for at the first
 * request, not here: their sources (metadata servers) may answer only once the host is up.
 */
export function createSigner(entry: AuthEntry, deps: SignerDeps): Signer {
  switch (entry.type) {
    case 'none':
      return createNoneSigner(entry, deps);
    case 'api-key':
      return createApiKeySigner(entry, deps);
    case 'bearer':
      return createBearerSigner(entry, deps);
    case 'azure-entra':
      return createAzureEntraSigner(entry, deps);
    case 'aws-sigv4':
      return createAwsSigv4Signer(entry, deps);
    case 'google-service-account':
      return createGoogleServiceAccountSigner(entry, deps);
    case 'aws-default-chain':
      return createAwsDefaultChainSigner(entry, deps);
    case 'google-adc':
      return createGoogleAdcSigner(entry, deps);
    case 'azure-managed-identity':
      return createAzureManagedIdentitySigner(entry, deps);
    case 'azure-default':
      return createAzureDefaultSigner(entry, deps);
    default:
      return unreachable(entry);
  }
}

/** A new auth type without a case above fails to compile here. */
function unreachable(entry: never): never {
  throw new Error(`unknown auth type ${(entry as { type?: unknown }).type as string}`);
}

export { AMBIENT_AUTH_TYPES, isAmbient } from './ambient.ts';
export { createApiKeySigner } from './api-key-signer.ts';
export {
  type AwsCredentialProvider,
  type AwsDefaultChainDeps,
  createAwsDefaultChainSigner,
} from './aws-default-chain-signer.ts';
export { createAwsSigv4Signer } from './aws-sigv4-signer.ts';
export { createAzureDefaultSigner, createAzureManagedIdentitySigner } from './azure-ambient-signer.ts';
export { type AzureEntraDeps, createAzureEntraSigner } from './azure-entra-signer.ts';
export { createBearerSigner } from './bearer-signer.ts';
export { createGoogleAdcSigner } from './google-adc-signer.ts';
export { createGoogleServiceAccountSigner } from './google-service-account-signer.ts';
export { createNoneSigner } from './none-signer.ts';
export * from './schema.ts';
export { readHeaderSecret, readSecret, SECRET_LOCATION_PATTERN, type SecretEnv } from './secrets.ts';
export { type ObtainedSecrets, REDACTED, SECRET_RUN, SecretRedactor } from './secret-redactor.ts';
export { CredentialError, type SignableRequest, type Signer } from './signer.ts';
export type { SignerDeps } from './signer-deps.ts';
