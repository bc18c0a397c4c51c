import { InvalidArgumentError } from '../errors.js';
import {
  regionOfStsEndpoint,
  resolveWorkloadIdentityOptions,
  WORKLOAD_IDENTITY_DEFAULTS,
} from './workload-identity-options.js';

describe('resolveWorkloadIdentityOptions', () => {
  it('applies the documented defaults', () => {
    const o = resolveWorkloadIdentityOptions({ audience: 'vane', env: {} });
    expect(o).toMatchObject({
      provider: 'auto',
      audience: 'vane',
      refreshMarginMs: 60_000,
      probeTimeoutMs: 1_000,
      kubernetesTokenPath: '/var/run/secrets/kubernetes.io/serviceaccount/token',
      gcpMetadataHost: 'metadata.google.internal',
      azureImdsEndpoint: 'http://169.254.169.254',
      azureClientId: undefined,
      awsStsEndpoint: 'https://sts.amazonaws.com',
      awsRegion: 'us-east-1',
      awsImdsEndpoint: 'http://169.254.169.254',
    });
    expect(WORKLOAD_IDENTITY_DEFAULTS.provider).toBe('auto');
  });

  it('reads GCE_METADATA_HOST, AZURE_CLIENT_ID and AWS_EC2_METADATA_SERVICE_ENDPOINT from env; options win over env', () => {
    const env = {
      GCE_METADATA_HOST: '127.0.0.1:8080',
      AZURE_CLIENT_ID: 'c1',
      AWS_EC2_METADATA_SERVICE_ENDPOINT: 'http://127.0.0.1:9/',
    };
    expect(resolveWorkloadIdentityOptions({ audience: 'a', env })).toMatchObject({
      gcpMetadataHost: '127.0.0.1:8080',
      azureClientId: 'c1',
      awsImdsEndpoint: 'http://127.0.0.1:9',
    });
    expect(
      resolveWorkloadIdentityOptions({ audience: 'a', env, gcpMetadataHost: 'h:1', azureClientId: 'c2' }),
    ).toMatchObject({ gcpMetadataHost: 'h:1', azureClientId: 'c2' });
  });

  it('derives the signing region from a regional STS endpoint', () => {
    expect(regionOfStsEndpoint('https://sts.eu-west-1.amazonaws.com')).toBe('eu-west-1');
    expect(regionOfStsEndpoint('https://sts.amazonaws.com')).toBe('us-east-1');
    expect(
      resolveWorkloadIdentityOptions({ audience: 'a', env: {}, awsStsEndpoint: 'https://sts.eu-west-1.amazonaws.com' })
        .awsRegion,
    ).toBe('eu-west-1');
    expect(
      resolveWorkloadIdentityOptions({
        audience: 'a',
        env: {},
        awsStsEndpoint: 'http://127.0.0.1:1',
        awsRegion: 'ap-south-1',
      }).awsRegion,
    ).toBe('ap-south-1');
  });

  it.each([
    ['no audience', {}, 'workloadIdentity.audience is required'],
    ['an empty audience', { audience: '' }, 'workloadIdentity.audience must be a non-empty string'],
    [
      'an unknown provider',
      { audience: 'a', provider: 'heroku' },
      'workloadIdentity.provider must be one of auto, kubernetes, aws, gcp, azure',
    ],
    [
      'a zero margin',
      { audience: 'a', refreshMarginMs: 0 },
      'workloadIdentity.refreshMarginMs must be a positive number of milliseconds',
    ],
    [
      'a bad STS URL',
      { audience: 'a', awsStsEndpoint: 'sts' },
      'workloadIdentity.awsStsEndpoint must be an absolute http(s) URL',
    ],
    [
      'a non-http IMDS',
      { audience: 'a', azureImdsEndpoint: 'ftp://x' },
      'workloadIdentity.azureImdsEndpoint must use http or https',
    ],
    [
      'awsCredentials not a function',
      { audience: 'a', awsCredentials: {} },
      'workloadIdentity.awsCredentials must be a function',
    ],
  ])('refuses %s before anything is sent', (_name, options, message) => {
    expect(() => resolveWorkloadIdentityOptions(options as never)).toThrow(InvalidArgumentError);
    expect(() => resolveWorkloadIdentityOptions(options as never)).toThrow(message);
  });
});
