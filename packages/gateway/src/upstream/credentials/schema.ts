/**
 * The `auth` tagged union of the upstreams file (TypeBox). AUTH_SCHEMAS maps each `type` to its
 * schema so the caller can validate branch by branch and report errors of the right branch.
 * Secrets are only ever locations (`env:NAME`, `path:/file`), never inline values.
 */
import { type Static, Type } from 'typebox';
import { SECRET_LOCATION_PATTERN } from './secrets.ts';

const strict = { additionalProperties: false } as const;

export const SecretLocationSchema = Type.String({ pattern: SECRET_LOCATION_PATTERN });
/** Identifiers that end up in URLs or credential scopes: no spaces, slashes or queries. */
const Identifier = Type.String({ pattern: '^[A-Za-z0-9._-]+$' });
/** Plain http only on the loopback interface (local test servers), https everywhere else. */
export const HTTPS_OR_LOOPBACK_URL =
  '^(https://[^\\s/?#]+(/\\S*)?|http://(127\\.0\\.0\\.1|localhost|\\[::1\\])(:[0-9]+)?(/\\S*)?)$';

export const DEFAULT_AZURE_SCOPE = 'https://cognitiveservices.azure.com/.default';
export const DEFAULT_AZURE_AUTHORITY_HOST = 'https://login.microsoftonline.com';
export const DEFAULT_AWS_SERVICE = 'bedrock';
export const DEFAULT_GOOGLE_SCOPES: readonly string[] = ['https://www.googleapis.com/auth/cloud-platform'];

export const NoneAuthSchema = Type.Object({ type: Type.Literal('none') }, strict);

/** Anthropic (`x-api-key`), Azure OpenAI (`api-key`), Gemini API (`x-goog-api-key`). */
export const ApiKeyAuthSchema = Type.Object(
  {
    type: Type.Literal('api-key'),
    header: Type.Union([Type.Literal('x-api-key'), Type.Literal('api-key'), Type.Literal('x-goog-api-key')]),
    key: SecretLocationSchema,
  },
  strict,
);

/** OpenAI, Bedrock API keys, local servers: `Authorization: Bearer <token>`. */
export const BearerAuthSchema = Type.Object(
  { type: Type.Literal('bearer'), token: SecretLocationSchema },
  strict,
);

export const AzureEntraAuthSchema = Type.Object(
  {
    type: Type.Literal('azure-entra'),
    tenantId: Identifier,
    clientId: Identifier,
    clientSecret: SecretLocationSchema,
    scope: Type.Optional(Type.String({ pattern: '^\\S+$' })),
    /**
     * https only: @azure/identity rejects any other protocol (IdentityClient and MSAL's
     * authority validation both throw), so an http loopback host could never work.
     */
    authorityHost: Type.Optional(Type.String({ pattern: '^https://[^\\s/?#]+/?$' })),
  },
  strict,
);

export const AwsSigv4AuthSchema = Type.Object(
  {
    type: Type.Literal('aws-sigv4'),
    region: Type.String({ pattern: '^[a-z0-9-]+$' }),
    service: Type.Optional(Type.String({ pattern: '^[a-z0-9-]+$' })),
    accessKeyId: SecretLocationSchema,
    secretAccessKey: SecretLocationSchema,
    sessionToken: Type.Optional(SecretLocationSchema),
  },
  strict,
);

export const GoogleServiceAccountAuthSchema = Type.Object(
  {
    type: Type.Literal('google-service-account'),
    /** The service account JSON key: an env var holding the JSON, or the key file. */
    credentials: SecretLocationSchema,
    scopes: Type.Optional(Type.Array(Type.String({ pattern: '^\\S+$' }), { minItems: 1 })),
    /** Replaces Google's token endpoint (private endpoints, local test servers). */
    /** Also `simulator/<path>`: the bundled simulator's token endpoint, substituted at start-up. */
    tokenUrl: Type.Optional(Type.String({ pattern: `${HTTPS_OR_LOOPBACK_URL}|^simulator/\\S*$` })),
  },
  strict,
);

/**
 * Ambient credentials: the machine's own identity, found by the vendor's library (instance or
 * container metadata, workload identity, environment, shared config), with no secret in the
 * upstreams file. The libraries read the process environment themselves.
 */
const AWS_PROFILE = Type.String({ pattern: '^[A-Za-z0-9._+=,@-]+$' });

/** The AWS SDK's default credential chain; the region is the endpoint's unless set here. */
export const AwsDefaultChainAuthSchema = Type.Object(
  {
    type: Type.Literal('aws-default-chain'),
    /** A profile of the shared config files (`AWS_PROFILE` otherwise). */
    profile: Type.Optional(AWS_PROFILE),
    region: Type.Optional(Type.String({ pattern: '^[a-z0-9-]+$' })),
    service: Type.Optional(Type.String({ pattern: '^[a-z0-9-]+$' })),
  },
  strict,
);

/** Google application default credentials (key file, gcloud, metadata server, federation). */
export const GoogleAdcAuthSchema = Type.Object(
  {
    type: Type.Literal('google-adc'),
    scopes: Type.Optional(Type.Array(Type.String({ pattern: '^\\S+$' }), { minItems: 1 })),
  },
  strict,
);

/** An Azure managed identity: system-assigned, or user-assigned when `clientId` is set. */
export const AzureManagedIdentityAuthSchema = Type.Object(
  {
    type: Type.Literal('azure-managed-identity'),
    clientId: Type.Optional(Identifier),
    scope: Type.Optional(Type.String({ pattern: '^\\S+$' })),
  },
  strict,
);

/** @azure/identity's DefaultAzureCredential (environment, workload identity, managed identity, CLI). */
export const AzureDefaultAuthSchema = Type.Object(
  {
    type: Type.Literal('azure-default'),
    /** The user-assigned managed identity or workload identity to use. */
    clientId: Type.Optional(Identifier),
    scope: Type.Optional(Type.String({ pattern: '^\\S+$' })),
  },
  strict,
);

/** Auth type -> schema: the tagged union, validated branch by branch on `type`. */
export const AUTH_SCHEMAS = {
  none: NoneAuthSchema,
  'api-key': ApiKeyAuthSchema,
  bearer: BearerAuthSchema,
  'azure-entra': AzureEntraAuthSchema,
  'aws-sigv4': AwsSigv4AuthSchema,
  'google-service-account': GoogleServiceAccountAuthSchema,
  'aws-default-chain': AwsDefaultChainAuthSchema,
  'google-adc': GoogleAdcAuthSchema,
  'azure-managed-identity': AzureManagedIdentityAuthSchema,
  'azure-default': AzureDefaultAuthSchema,
} as const;

export type AuthType = keyof typeof AUTH_SCHEMAS;

/** Microsoft Entra ID tokens, for a scope (`scope`) the entry may name: any Azure API's. */
export const ENTRA_AUTH_TYPES: ReadonlySet<AuthType> = new Set<AuthType>([
  'azure-entra',
  'azure-managed-identity',
  'azure-default',
]);
export type NoneAuth = Static<typeof NoneAuthSchema>;
export type ApiKeyAuth = Static<typeof ApiKeyAuthSchema>;
export type BearerAuth = Static<typeof BearerAuthSchema>;
export type AzureEntraAuth = Static<typeof AzureEntraAuthSchema>;
export type AwsSigv4Auth = Static<typeof AwsSigv4AuthSchema>;
export type GoogleServiceAccountAuth = Static<typeof GoogleServiceAccountAuthSchema>;
export type AwsDefaultChainAuth = Static<typeof AwsDefaultChainAuthSchema>;
export type GoogleAdcAuth = Static<typeof GoogleAdcAuthSchema>;
export type AzureManagedIdentityAuth = Static<typeof AzureManagedIdentityAuthSchema>;
export type AzureDefaultAuth = Static<typeof AzureDefaultAuthSchema>;
export type AuthEntry = Static<(typeof AUTH_SCHEMAS)[AuthType]>;
