/**
 * The credentials the simulator issues and then checks, as each real service would: API keys,
 * an AWS access key pair (SigV4 is recomputed), and a Google service account whose signed JWT
 * assertions its token endpoint exchanges for access tokens. Fresh for every simulator unless
 * given; the gateway receives them through its environment (see `credentialEnv`).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';

export interface GoogleServiceAccount {
  readonly type: 'service_account';
  readonly project_id: string;
  readonly private_key_id: string;
  readonly private_key: string;
  readonly client_email: string;
  readonly token_uri: string;
}

export interface SimCredentials {
  readonly openaiKey: string;
  readonly azureKey: string;
  /** App Service's `IDENTITY_HEADER`: the secret its managed identity endpoint requires. */
  readonly azureIdentityHeader: string;
  readonly anthropicKey: string;
  readonly geminiKey: string;
  readonly aws: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly region: string };
  /** PEM public key that verifies the service account's assertions. */
  readonly googlePublicKey: string;
  /** Without `token_uri`: the simulator fills it in once it knows its own address. */
  readonly googleServiceAccount: Omit<GoogleServiceAccount, 'token_uri'>;
}

function secret(prefix: string): string {
  return `${prefix}${randomBytes(18).toString('base64url')}`;
}

export function generateCredentials(): SimCredentials {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    openaiKey: secret('sk-sim-openai-'),
    azureKey: randomBytes(16).toString('hex'),
    azureIdentityHeader: randomBytes(16).toString('hex'),
    anthropicKey: secret('sk-ant-sim-'),
    geminiKey: secret('AIzaSim'),
    aws: {
      accessKeyId: `AKIASIM${randomBytes(6).toString('hex').toUpperCase()}`.slice(0, 20),
      secretAccessKey: randomBytes(30).toString('base64').slice(0, 40),
      region: 'us-east-1',
    },
    googlePublicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    googleServiceAccount: {
      type: 'service_account',
      project_id: 'sim-project',
      private_key_id: randomBytes(8).toString('hex'),
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: 'gateway@sim-project.iam.gserviceaccount.com',
    },
  };
}

/**
 * The environment variables the bundled `upstreams.simulated.json` names as credential
 * locations, holding this simulator's credentials.
 */
export function credentialEnv(credentials: SimCredentials, tokenUri: string): Record<string, string> {
  return {
    SIM_OPENAI_API_KEY: credentials.openaiKey,
    SIM_AZURE_API_KEY: credentials.azureKey,
    SIM_ANTHROPIC_API_KEY: credentials.anthropicKey,
    SIM_GEMINI_API_KEY: credentials.geminiKey,
    SIM_AWS_ACCESS_KEY_ID: credentials.aws.accessKeyId,
    SIM_AWS_SECRET_ACCESS_KEY: credentials.aws.secretAccessKey,
    SIM_GOOGLE_SERVICE_ACCOUNT: JSON.stringify({ ...credentials.googleServiceAccount, token_uri: tokenUri }),
  };
}
