import * as api from '../src/index.js';
import type { ChangeEvent, ConfigValue, VaneClient } from '../src/index.js';

/** Type-level checks: compiled by `tsc -p tsconfig.json`, never called. */
export function typeChecks(client: VaneClient): void {
  const n: number = client.config('db.pool.max', 10);
  const s: string = client.config('db.host', 'localhost');
  const b: boolean = client.config('maintenance.enabled', false);
  const a: readonly string[] = client.config<readonly string[]>('cors.origins', []);
  const maybe: ConfigValue | undefined = client.config('anything');
  const lookup = client.configLookup('x');
  if (lookup.found) {
    const v: ConfigValue = lookup.value;
    void v;
  }
  const flag: boolean = client.flag('f');
  // @ts-expect-error a secret can be null
  const secret: string = client.secret('s');
  const strict: string = client.requireSecret('s');
  client.onChange((e: ChangeEvent) => {
    if (e.kind === 'secret') {
      // @ts-expect-error secret events carry no value
      void e.newValue?.value;
      const version: number | undefined = e.newValue?.version;
      void version;
    }
    if (e.kind === 'flag') {
      const active: boolean | undefined = e.newValue;
      void active;
    }
  });
  void [n, s, b, a, maybe, flag, secret, strict];
}

describe('public door', () => {
  it('exports a small surface: the client, the check, errors, and helpers', () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        'AB_CACHE_DEFAULTS',
        'AddonNotAvailableError',
        'ApiKeyCredentials',
        'BillingOverdueError',
        'ClientClosedError',
        'ConfigInvalidError',
        'DEFAULTS',
        'FileBackupStore',
        'FrontendSecretReadError',
        'InvalidArgumentError',
        'MAX_AB_KEYS_PER_CALL',
        'NotAVaneServiceError',
        'NotFoundError',
        'PublicKeySecretAccessError',
        'QuarantinedError',
        'RateLimitedError',
        'RedisBackupStore',
        'RequestAbEvaluation',
        'SecretFileWriteError',
        'SecretsNotAvailableError',
        'SecretNotFoundError',
        'SessionExpiredError',
        'TokenExchangeFailedError',
        'TransportError',
        'UnauthorizedError',
        'UnexpectedResponseError',
        'VaneClient',
        'VaneError',
        'VaneHttpError',
        'WorkloadIdentityNotConfiguredError',
        'WorkloadIdentityCredentials',
        'WORKLOAD_IDENTITY_DEFAULTS',
        'abContextKey',
        'checkConnectivity',
        'defineSchema',
        'keyTypeOf',
        'redactKey',
        'sweepStaleSecretDirs',
      ].sort(),
    );
  });
});
