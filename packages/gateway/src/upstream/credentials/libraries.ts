/**
 * The vendors' credential libraries, imported on first use. Together they hold about 60 MiB of
 * a process's memory (@azure/identity with MSAL, google-auth-library, the AWS chain and
 * @smithy's SigV4), and a gateway uses only the ones of the signers its upstreams name: a
 * static import would charge every instance for all of them. Each import runs once; the first
 * request of a signer waits for it.
 */

/** `load` once; later calls share the same promise (a failed import is retried next time). */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}

export const azureIdentity = once(() => import('@azure/identity'));
export const googleAuth = once(() => import('google-auth-library'));
export const awsCredentialProviders = once(() => import('@aws-sdk/credential-providers'));
export const smithySigV4 = once(async () => {
  const [{ SignatureV4 }, { Hash }] = await Promise.all([
    import('@smithy/signature-v4'),
    import('@smithy/hash-node'),
  ]);
  return { SignatureV4, Hash };
});
