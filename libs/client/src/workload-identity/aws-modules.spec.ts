import { WorkloadIdentityNotConfiguredError } from '../errors.js';
import type { ModuleImporter } from '@vane/common';
import { AWS_PACKAGES, loadAwsModules } from './aws-modules.js';

const notFound = (name: string): Error =>
  Object.assign(new Error(`Cannot find module '${name}'\nRequire stack:\n- /app/x.js`), { code: 'MODULE_NOT_FOUND' });

/** The real packages (dev dependencies here), except those named in `missing`. */
const importerWithout =
  (...missing: string[]): ModuleImporter =>
  (name) =>
    missing.includes(name) ? Promise.reject(notFound(name)) : import(name);

describe('loadAwsModules', () => {
  it('loads the installed packages into a signer and a credential chain', async () => {
    const modules = await loadAwsModules(importerWithout());
    const signer = modules.createSigner({
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
      region: 'us-east-1',
      service: 'sts',
    });
    const signed = await signer.sign({
      method: 'POST',
      protocol: 'https:',
      hostname: 'sts.amazonaws.com',
      path: '/',
      headers: { host: 'sts.amazonaws.com' },
      body: 'Action=GetCallerIdentity&Version=2011-06-15',
    });
    expect(signed.headers['authorization']).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDTEST\//);
    expect(typeof modules.defaultCredentials({ timeoutMs: 1000 })).toBe('function');
  });

  it('names only the missing packages in its npm install line, and keeps the first line of the cause', async () => {
    const error = await loadAwsModules(importerWithout('@aws-sdk/credential-providers')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkloadIdentityNotConfiguredError);
    expect((error as Error).message).toMatch(
      /optional peer dependencies of @vane\/client: npm install @aws-sdk\/credential-providers$/,
    );
    expect(((error as Error).cause as Error).message).toBe("Cannot find module '@aws-sdk/credential-providers'");
  });

  it('names all three when none is installed', async () => {
    const error = await loadAwsModules(importerWithout(...AWS_PACKAGES)).catch((e: unknown) => e);
    expect((error as Error).message).toContain(`npm install ${AWS_PACKAGES.join(' ')}`);
  });

  it('a package that is installed but fails to load is named, without an install line', async () => {
    const error = await loadAwsModules((name) =>
      name === '@smithy/signature-v4' ? Promise.reject(new SyntaxError('Unexpected token')) : import(name),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkloadIdentityNotConfiguredError);
    expect((error as Error).message).toBe(
      'workload identity (aws): @smithy/signature-v4 is installed but could not be loaded',
    );
  });
});
