/**
 * Chooses where the platform identity comes from: the provider given, or
 * for `auto` the first platform found, in a fixed order.
 *
 * @packageDocumentation
 */
import { access, constants } from 'node:fs/promises';
import { WorkloadIdentityNotConfiguredError } from '../errors.js';
import type { ModuleImporter } from '@vane/common';
import { AwsTokenSource } from './aws-token-source.js';
import { AzureTokenSource, type AzureIdentitySource } from './azure-token-source.js';
import { GcpTokenSource } from './gcp-token-source.js';
import { KubernetesTokenSource } from './kubernetes-token-source.js';
import { describeNetworkError, type MetadataHttp } from './metadata-http.js';
import type { PlatformTokenSource } from './platform-token-source.js';
import type { ResolvedWorkloadIdentityOptions, WorkloadIdentityProvider } from './workload-identity-options.js';

/** Environment variables that tell AWS credentials are at hand without asking the network. */
export const AWS_ENV_SIGNALS = [
  'AWS_ACCESS_KEY_ID',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
] as const;

/** What detection needs besides the options. */
export interface DetectionContext {
  /** Metadata calls. */
  readonly http: MetadataHttp;
  /** Cut-off of each platform-token call once a provider is chosen, in milliseconds. */
  readonly timeoutMs: number;
  /** Loads the optional AWS packages (tests). */
  readonly importer?: ModuleImporter;
}

function set(env: ResolvedWorkloadIdentityOptions['env'], name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function azureSource(o: ResolvedWorkloadIdentityOptions): AzureIdentitySource {
  const file = set(o.env, 'AZURE_FEDERATED_TOKEN_FILE');
  if (file !== undefined) return { kind: 'federated-token-file', path: file };
  const endpoint = set(o.env, 'IDENTITY_ENDPOINT');
  const header = set(o.env, 'IDENTITY_HEADER');
  if (endpoint !== undefined && header !== undefined) return { kind: 'app-service', endpoint, header };
  return { kind: 'imds', endpoint: o.azureImdsEndpoint };
}

/** The token source of one provider. */
export function tokenSourceFor(
  provider: WorkloadIdentityProvider,
  o: ResolvedWorkloadIdentityOptions,
  ctx: DetectionContext,
): PlatformTokenSource {
  switch (provider) {
    case 'kubernetes':
      return new KubernetesTokenSource(o.kubernetesTokenPath);
    case 'gcp':
      return new GcpTokenSource(ctx.http, o.gcpMetadataHost, o.audience, ctx.timeoutMs);
    case 'azure':
      return new AzureTokenSource(ctx.http, azureSource(o), o.audience, o.azureClientId, ctx.timeoutMs);
    case 'aws':
      return new AwsTokenSource({
        stsEndpoint: o.awsStsEndpoint,
        region: o.awsRegion,
        audience: o.audience,
        credentials: o.awsCredentials,
        timeoutMs: o.probeTimeoutMs,
        importer: ctx.importer,
      });
  }
}

async function probe(
  ctx: DetectionContext,
  url: string,
  method: 'GET' | 'PUT',
  headers: Record<string, string>,
  timeoutMs: number,
  accept: (status: number, header: (n: string) => string | undefined) => boolean,
): Promise<string | true> {
  try {
    const answer = await ctx.http.fetch({ method, url, headers, timeoutMs });
    return accept(answer.status, (n) => answer.header(n)) ? true : `answered ${answer.status}`;
  } catch (error) {
    return describeNetworkError(error);
  }
}

/**
 * Detects the platform, in this order; the first match wins:
 *
 * 1. `AZURE_FEDERATED_TOKEN_FILE` set: Azure (AKS workload identity).
 * 2. `awsCredentials` given, or `AWS_ACCESS_KEY_ID`, `AWS_WEB_IDENTITY_TOKEN_FILE`
 *    or `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI`/`_FULL_URI` set: AWS.
 * 3. `IDENTITY_ENDPOINT` and `IDENTITY_HEADER` set: Azure (App Service, Functions).
 * 4. A readable Kubernetes service-account token file: Kubernetes.
 * 5. Probed at once, each within `probeTimeoutMs`: the GCP metadata server
 *    (answering `Metadata-Flavor: Google`), then Azure IMDS, then EC2
 *    instance metadata (skipped when `AWS_EC2_METADATA_DISABLED=true`).
 *
 * @throws WorkloadIdentityNotConfiguredError - listing everything looked for and why it did not match.
 */
export async function detectPlatform(
  o: ResolvedWorkloadIdentityOptions,
  ctx: DetectionContext,
): Promise<PlatformTokenSource> {
  const looked: string[] = [];
  if (set(o.env, 'AZURE_FEDERATED_TOKEN_FILE') !== undefined) return tokenSourceFor('azure', o, ctx);
  looked.push('AZURE_FEDERATED_TOKEN_FILE (unset)');
  if (o.awsCredentials !== undefined || AWS_ENV_SIGNALS.some((name) => set(o.env, name) !== undefined))
    return tokenSourceFor('aws', o, ctx);
  looked.push(`AWS credentials in the environment (${AWS_ENV_SIGNALS.join(', ')}: unset)`);
  if (set(o.env, 'IDENTITY_ENDPOINT') !== undefined && set(o.env, 'IDENTITY_HEADER') !== undefined)
    return tokenSourceFor('azure', o, ctx);
  looked.push('Azure App Service IDENTITY_ENDPOINT and IDENTITY_HEADER (unset)');
  try {
    await access(o.kubernetesTokenPath, constants.R_OK);
    return tokenSourceFor('kubernetes', o, ctx);
  } catch (error) {
    looked.push(
      `the Kubernetes service-account token at ${o.kubernetesTokenPath} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
    );
  }
  const awsDisabled = (set(o.env, 'AWS_EC2_METADATA_DISABLED') ?? '').toLowerCase() === 'true';
  const gcpOrigin = `http://${o.gcpMetadataHost}`;
  const [gcp, azure, aws] = await Promise.all([
    probe(
      ctx,
      `${gcpOrigin}/computeMetadata/v1/`,
      'GET',
      { 'metadata-flavor': 'Google' },
      o.probeTimeoutMs,
      (status, header) => status === 200 && header('metadata-flavor') === 'Google',
    ),
    probe(
      ctx,
      `${o.azureImdsEndpoint}/metadata/instance?api-version=2021-02-01`,
      'GET',
      { metadata: 'true' },
      o.probeTimeoutMs,
      (status) => status === 200,
    ),
    awsDisabled
      ? Promise.resolve('disabled by AWS_EC2_METADATA_DISABLED')
      : probe(
          ctx,
          `${o.awsImdsEndpoint}/latest/api/token`,
          'PUT',
          { 'x-aws-ec2-metadata-token-ttl-seconds': '60' },
          o.probeTimeoutMs,
          (status) => status === 200,
        ),
  ]);
  if (gcp === true) return tokenSourceFor('gcp', o, ctx);
  looked.push(`the GCP metadata server at ${gcpOrigin} (${gcp})`);
  if (azure === true) return tokenSourceFor('azure', o, ctx);
  looked.push(`Azure IMDS at ${o.azureImdsEndpoint} (${azure})`);
  if (aws === true) return tokenSourceFor('aws', o, ctx);
  looked.push(`EC2 instance metadata at ${o.awsImdsEndpoint} (${aws})`);
  throw new WorkloadIdentityNotConfiguredError(
    `workload identity not configured: no platform matches this environment. Looked for: ${looked.join('; ')}. Set workloadIdentity.provider to say which platform to use, or give apiKey`,
  );
}

/** The token source for the options: the given provider, or the detected one for `auto`. */
export function selectTokenSource(
  o: ResolvedWorkloadIdentityOptions,
  ctx: DetectionContext,
): Promise<PlatformTokenSource> {
  return o.provider === 'auto' ? detectPlatform(o, ctx) : Promise.resolve(tokenSourceFor(o.provider, o, ctx));
}
