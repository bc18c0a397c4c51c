/**
 * Options of workload identity federation (PROTOCOL §8), their defaults and
 * their validation.
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from '../errors.js';

/** A platform whose identity the client can exchange for a session. */
export type WorkloadIdentityProvider = 'kubernetes' | 'aws' | 'gcp' | 'azure';

/** Static AWS credentials, as AWS's credential providers resolve them. */
export interface AwsCredentials {
  /** Access key id. */
  readonly accessKeyId: string;
  /** Secret access key (never logged). */
  readonly secretAccessKey: string;
  /** Session token of temporary credentials. */
  readonly sessionToken?: string;
  /** When temporary credentials expire. */
  readonly expiration?: Date;
}

/** A function resolving AWS credentials, such as those of `@aws-sdk/credential-providers`. */
export type AwsCredentialsProvider = () => Promise<AwsCredentials>;

/**
 * Workload identity: instead of a static key, the client exchanges its
 * platform identity for a session at `/v1/auth/token-exchange` and sends
 * `Authorization: Bearer <session>`, refreshing it before it expires.
 *
 * Every endpoint the client talks to while detecting the platform or fetching
 * its identity can be set, so tests (and unusual networks) can point them
 * elsewhere.
 */
export interface WorkloadIdentityOptions {
  /**
   * The platform, or `auto` to detect it (see the README for the order).
   * @default 'auto'
   */
  provider?: 'auto' | WorkloadIdentityProvider;
  /**
   * The audience the platform identity is issued for, as the service's trust
   * expects it: the `audience` of a GCP identity token, the `resource` of an
   * Azure managed-identity token, the signed `x-vane-audience` header of the
   * AWS request. Kubernetes ignores it (the pod spec projects the token with
   * its audience).
   */
  audience: string;
  /**
   * How long before `expires_at` the session is refreshed, in milliseconds.
   * A session with less than twice this left is refreshed halfway through
   * what is left.
   * @default 60000
   */
  refreshMarginMs?: number;
  /**
   * Time given to each metadata-server probe of `auto` detection (GCP, Azure
   * IMDS, EC2 IMDS, run at once), in milliseconds; bounds how long detection
   * takes when nothing answers.
   * @default 1000
   */
  probeTimeoutMs?: number;
  /**
   * Path of the Kubernetes service-account token (read again for every exchange, as projected tokens rotate).
   * @default '/var/run/secrets/kubernetes.io/serviceaccount/token'
   */
  kubernetesTokenPath?: string;
  /**
   * Host (and port) of the GCP metadata server.
   * @default `GCE_METADATA_HOST`, else 'metadata.google.internal'
   */
  gcpMetadataHost?: string;
  /**
   * Base URL of Azure's instance metadata service (IMDS).
   * @default 'http://169.254.169.254'
   */
  azureImdsEndpoint?: string;
  /**
   * Client id of a user-assigned managed identity.
   * @default `AZURE_CLIENT_ID`, else the system-assigned identity
   */
  azureClientId?: string;
  /**
   * AWS STS endpoint the GetCallerIdentity request is signed for. It must
   * match the `sts_endpoint` of the service's AWS trust.
   * @default 'https://sts.amazonaws.com'
   */
  awsStsEndpoint?: string;
  /**
   * Signing region of the STS request.
   * @default the region in `awsStsEndpoint` (`sts.<region>.amazonaws.com`), else 'us-east-1'
   */
  awsRegion?: string;
  /**
   * Base URL of the EC2 instance metadata service, probed by `auto` detection.
   * Not probed when `AWS_EC2_METADATA_DISABLED=true`.
   * @default `AWS_EC2_METADATA_SERVICE_ENDPOINT`, else 'http://169.254.169.254'
   */
  awsImdsEndpoint?: string;
  /**
   * Where AWS credentials come from.
   * @default AWS's Node.js provider chain (`fromNodeProviderChain` of
   * `@aws-sdk/credential-providers`: environment, SSO and shared files, web
   * identity token file, ECS/EKS container, EC2 instance)
   */
  awsCredentials?: AwsCredentialsProvider;
  /**
   * The environment detection reads (`AZURE_FEDERATED_TOKEN_FILE`,
   * `IDENTITY_ENDPOINT`, `AWS_*`, `GCE_METADATA_HOST`…). AWS's own provider
   * chain always reads `process.env`.
   * @default process.env
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Workload identity options after defaults. Internal. */
export interface ResolvedWorkloadIdentityOptions {
  readonly provider: 'auto' | WorkloadIdentityProvider;
  readonly audience: string;
  readonly refreshMarginMs: number;
  readonly probeTimeoutMs: number;
  readonly kubernetesTokenPath: string;
  readonly gcpMetadataHost: string;
  readonly azureImdsEndpoint: string;
  readonly azureClientId: string | undefined;
  readonly awsStsEndpoint: string;
  readonly awsRegion: string;
  readonly awsImdsEndpoint: string;
  readonly awsCredentials: AwsCredentialsProvider | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Defaults of the workload identity options. */
export const WORKLOAD_IDENTITY_DEFAULTS = Object.freeze({
  provider: 'auto' as const,
  refreshMarginMs: 60_000,
  probeTimeoutMs: 1_000,
  kubernetesTokenPath: '/var/run/secrets/kubernetes.io/serviceaccount/token',
  gcpMetadataHost: 'metadata.google.internal',
  azureImdsEndpoint: 'http://169.254.169.254',
  awsStsEndpoint: 'https://sts.amazonaws.com',
  awsImdsEndpoint: 'http://169.254.169.254',
});

const PROVIDERS: ReadonlyArray<string> = ['auto', 'kubernetes', 'aws', 'gcp', 'azure'];

function nonEmpty(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function text(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '')
    throw new InvalidArgumentError(`workloadIdentity.${name} must be a non-empty string`);
  return value;
}

function url(name: string, value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new InvalidArgumentError(`workloadIdentity.${name} must be an absolute http(s) URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new InvalidArgumentError(`workloadIdentity.${name} must use http or https`);
  return value.replace(/\/+$/, '');
}

function duration(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidArgumentError(`workloadIdentity.${name} must be a positive number of milliseconds`);
  }
  return value;
}

/** The signing region of an STS endpoint: `sts.<region>.amazonaws.com`, else `us-east-1`. */
export function regionOfStsEndpoint(endpoint: string): string {
  const match = /^sts\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/.exec(new URL(endpoint).hostname);
  return match?.[1] ?? 'us-east-1';
}

/**
 * Applies defaults and validates, before anything is sent.
 *
 * @throws InvalidArgumentError - naming the option.
 */
export function resolveWorkloadIdentityOptions(options: WorkloadIdentityOptions): ResolvedWorkloadIdentityOptions {
  if (typeof options !== 'object' || options === null)
    throw new InvalidArgumentError('workloadIdentity must be an object such as { audience: "vane" }');
  const provider = options.provider ?? WORKLOAD_IDENTITY_DEFAULTS.provider;
  if (!PROVIDERS.includes(provider))
    throw new InvalidArgumentError(`workloadIdentity.provider must be one of ${PROVIDERS.join(', ')}`);
  const audience = text('audience', options.audience);
  if (audience === undefined)
    throw new InvalidArgumentError("workloadIdentity.audience is required (the audience the service's trust expects)");
  if (options.awsCredentials !== undefined && typeof options.awsCredentials !== 'function') {
    throw new InvalidArgumentError('workloadIdentity.awsCredentials must be a function resolving AWS credentials');
  }
  const env = options.env ?? process.env;
  const awsStsEndpoint = url(
    'awsStsEndpoint',
    text('awsStsEndpoint', options.awsStsEndpoint) ?? WORKLOAD_IDENTITY_DEFAULTS.awsStsEndpoint,
  );
  return {
    provider,
    audience,
    refreshMarginMs: duration('refreshMarginMs', options.refreshMarginMs, WORKLOAD_IDENTITY_DEFAULTS.refreshMarginMs),
    probeTimeoutMs: duration('probeTimeoutMs', options.probeTimeoutMs, WORKLOAD_IDENTITY_DEFAULTS.probeTimeoutMs),
    kubernetesTokenPath:
      text('kubernetesTokenPath', options.kubernetesTokenPath) ?? WORKLOAD_IDENTITY_DEFAULTS.kubernetesTokenPath,
    gcpMetadataHost:
      text('gcpMetadataHost', options.gcpMetadataHost) ??
      nonEmpty(env, 'GCE_METADATA_HOST') ??
      WORKLOAD_IDENTITY_DEFAULTS.gcpMetadataHost,
    azureImdsEndpoint: url(
      'azureImdsEndpoint',
      text('azureImdsEndpoint', options.azureImdsEndpoint) ?? WORKLOAD_IDENTITY_DEFAULTS.azureImdsEndpoint,
    ),
    azureClientId: text('azureClientId', options.azureClientId) ?? nonEmpty(env, 'AZURE_CLIENT_ID'),
    awsStsEndpoint,
    awsRegion: text('awsRegion', options.awsRegion) ?? regionOfStsEndpoint(awsStsEndpoint),
    awsImdsEndpoint: url(
      'awsImdsEndpoint',
      text('awsImdsEndpoint', options.awsImdsEndpoint) ??
        nonEmpty(env, 'AWS_EC2_METADATA_SERVICE_ENDPOINT') ??
        WORKLOAD_IDENTITY_DEFAULTS.awsImdsEndpoint,
    ),
    awsCredentials: options.awsCredentials,
    env,
  };
}
