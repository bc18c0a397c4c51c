/**
 * AWS's own signer and credential packages, optional dependencies of
 * `@vane/client`, loaded only when the AWS provider is used.
 *
 * @packageDocumentation
 */
import { WorkloadIdentityNotConfiguredError } from '../errors.js';
import type { AwsCredentials, AwsCredentialsProvider } from './workload-identity-options.js';

/** The optional packages the AWS provider needs. */
export const AWS_PACKAGES = ['@smithy/signature-v4', '@aws-crypto/sha256-js', '@aws-sdk/credential-providers'] as const;

/** An HTTP request as `@smithy/signature-v4` signs it. */
export interface SignableRequest {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** The part of `@smithy/signature-v4`'s `SignatureV4` the AWS provider uses. */
export interface SigV4Signer {
  sign(request: SignableRequest): Promise<SignableRequest>;
}

/** What the AWS provider takes from the optional packages. */
export interface AwsModules {
  /** Builds AWS's SigV4 signer. */
  createSigner(init: {
    credentials: AwsCredentialsProvider | AwsCredentials;
    region: string;
    service: string;
  }): SigV4Signer;
  /** AWS's default Node.js credential chain, with a bounded instance-metadata timeout (ms). */
  defaultCredentials(init: { timeoutMs: number }): AwsCredentialsProvider;
}

/** Loads a module by name (`import()`); swapped in tests to simulate a missing package. */
export type ModuleImporter = (name: string) => Promise<unknown>;

const defaultImporter: ModuleImporter = (name) => import(name);

/**
 * Loads the AWS packages.
 *
 * @throws WorkloadIdentityNotConfiguredError - with the `npm install` command when one is missing.
 */
export async function loadAwsModules(importer: ModuleImporter = defaultImporter): Promise<AwsModules> {
  let signature: { SignatureV4: new (init: object) => SigV4Signer };
  let sha: { Sha256: unknown };
  let providers: { fromNodeProviderChain: (init: object) => AwsCredentialsProvider };
  try {
    [signature, sha, providers] = (await Promise.all(AWS_PACKAGES.map((name) => importer(name)))) as [
      typeof signature,
      typeof sha,
      typeof providers,
    ];
  } catch (error) {
    throw new WorkloadIdentityNotConfiguredError(
      `workload identity (aws) needs AWS's signer and credential packages, which are optional dependencies of @vane/client: npm install ${AWS_PACKAGES.join(' ')}`,
      { cause: error instanceof Error ? new Error(error.message.split('\n')[0]) : undefined },
    );
  }
  return {
    createSigner: (init) => new signature.SignatureV4({ ...init, sha256: sha.Sha256 }),
    defaultCredentials: ({ timeoutMs }) => providers.fromNodeProviderChain({ timeout: timeoutMs, maxRetries: 1 }),
  };
}
