/** AWS SigV4 (Bedrock and other AWS services) with a static access key from the upstreams file. */
import type { SignatureV4 } from '@smithy/signature-v4';
import { type AwsSigv4Auth, DEFAULT_AWS_SERVICE } from './schema.ts';
import { readHeaderSecret, readSecret } from './secrets.ts';
import type { Signer } from './signer.ts';
import type { SignerDeps } from './signer-deps.ts';
import { createSignatureV4, signSigV4 } from './sigv4.ts';

export function createAwsSigv4Signer(entry: AwsSigv4Auth, deps: SignerDeps): Signer {
  const sessionToken =
    entry.sessionToken === undefined ? undefined : readHeaderSecret(entry.sessionToken, deps.env);
  const service = entry.service ?? DEFAULT_AWS_SERVICE;
  const credentials = {
    accessKeyId: readHeaderSecret(entry.accessKeyId, deps.env),
    secretAccessKey: readSecret(entry.secretAccessKey, deps.env),
    ...(sessionToken === undefined ? {} : { sessionToken }),
  };
  for (const secret of [credentials.accessKeyId, credentials.secretAccessKey, sessionToken])
    deps.secrets?.add(secret);
  let signer: Promise<SignatureV4> | undefined;
  const now = deps.now ?? Date.now;
  const label = `aws-sigv4 (${service}, ${entry.region}, ${entry.accessKeyId})`;
  return {
    kind: 'aws-sigv4',
    async sign(request) {
      const signingDate = new Date(now());
      signer ??= createSignatureV4(credentials, service, entry.region);
      return signSigV4(await signer, request, signingDate, label);
    },
    close: async () => {},
  };
}
