/**
 * Ambient Microsoft Entra credentials for Azure OpenAI, from @azure/identity:
 * - `azure-managed-identity`: ManagedIdentityCredential (App Service and Functions through
 *   IDENTITY_ENDPOINT/IDENTITY_HEADER, Cloud Shell, Arc, Service Fabric, else the VM's IMDS),
 *   system-assigned or the user-assigned identity `clientId`;
 * - `azure-default`: DefaultAzureCredential (environment, AKS workload identity, managed
 *   identity, then developer sign-ins such as the Azure CLI).
 * Tokens go through the same TokenCache as `azure-entra` (refreshed before expiry, or when
 * Entra's `refresh_in` says so). @azure/identity and MSAL read the process environment
 * themselves, when a token is first asked for, never at import; the library is loaded and the
 * credential built at the first token request (libraries.ts).
 */
import type { TokenCredential } from '@azure/identity';
import { type CredentialSource, createTokenCredentialSigner } from './azure-entra-signer.ts';
import { azureIdentity } from './libraries.ts';
import { type AzureDefaultAuth, type AzureManagedIdentityAuth, DEFAULT_AZURE_SCOPE } from './schema.ts';
import { CredentialError, type Signer } from './signer.ts';
import type { SignerDeps } from './signer-deps.ts';

type AzureIdentity = Awaited<ReturnType<typeof azureIdentity>>;

/** Constructors throw when the environment names an unusable source (e.g. Cloud Shell + clientId). */
function created(label: string, make: (library: AzureIdentity) => TokenCredential): CredentialSource {
  return async () => {
    const library = await azureIdentity();
    try {
      return make(library);
    } catch (error) {
      throw new CredentialError(`${label}: ${error instanceof Error ? error.name : 'error'} at creation`);
    }
  };
}

export function createAzureManagedIdentitySigner(entry: AzureManagedIdentityAuth, deps: SignerDeps): Signer {
  const identity = entry.clientId === undefined ? 'system-assigned' : `client ${entry.clientId}`;
  const label = `azure-managed-identity (${identity})`;
  const credential = created(label, ({ ManagedIdentityCredential }) =>
    entry.clientId === undefined
      ? new ManagedIdentityCredential()
      : new ManagedIdentityCredential({ clientId: entry.clientId }),
  );
  const scope = entry.scope ?? DEFAULT_AZURE_SCOPE;
  return createTokenCredentialSigner('azure-managed-identity', label, credential, scope, deps);
}

export function createAzureDefaultSigner(entry: AzureDefaultAuth, deps: SignerDeps): Signer {
  const label = `azure-default (${entry.clientId === undefined ? 'default identity' : `client ${entry.clientId}`})`;
  const credential = created(label, ({ DefaultAzureCredential }) =>
    entry.clientId === undefined
      ? new DefaultAzureCredential()
      : new DefaultAzureCredential({
          managedIdentityClientId: entry.clientId,
          workloadIdentityClientId: entry.clientId,
        }),
  );
  const scope = entry.scope ?? DEFAULT_AZURE_SCOPE;
  return createTokenCredentialSigner('azure-default', label, credential, scope, deps);
}
