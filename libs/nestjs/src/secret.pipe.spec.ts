import type { VaneClient, VaneLogger } from '@vane/client';
import { FrontendSecretReadError, PublicKeySecretAccessError, SecretsNotAvailableError } from '@vane/client/errors';
import { SecretUnavailableException } from './errors/secret-unavailable.exception.js';
import { SecretPipe } from './secret.pipe.js';

function pipeWith(refusal: ReturnType<VaneClient['secretReadRefusal']>): { pipe: SecretPipe; errors: string[] } {
  const errors: string[] = [];
  const client = {
    secretReadRefusal: () => refusal,
    secret: () => {
      throw refusal ?? new Error('unreachable');
    },
    secretFile: () => {
      throw refusal ?? new Error('unreachable');
    },
  } as unknown as VaneClient;
  const logger: VaneLogger = { warn: () => undefined, error: (m) => void errors.push(m) };
  return { pipe: new SecretPipe(client, logger), errors };
}

describe('SecretPipe follows the client’s one secret-read rule', () => {
  it.each([
    ['a stale start from a backup without secrets', new SecretsNotAvailableError(), 'not-available-yet'],
    ['a public key', new PublicKeySecretAccessError(), 'public-key'],
    ['a frontend service', new FrontendSecretReadError(), 'frontend-service'],
  ] as const)('%s: the module’s own exception (a generic 500), never the client’s error', (_name, refusal, reason) => {
    const { pipe, errors } = pipeWith(refusal);
    let thrown: unknown;
    try {
      pipe.transform(undefined, { type: 'custom', data: { key: 'stripe.api_key' } as unknown as string });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(SecretUnavailableException);
    expect(thrown).toMatchObject({ reason, key: 'stripe.api_key', code: 'VANE_NEST_SECRET_UNAVAILABLE' });
    expect((thrown as SecretUnavailableException).getResponse()).toEqual({
      statusCode: 500,
      message: 'Internal server error',
    });
    expect(errors.join('\n')).toContain('"stripe.api_key"');
  });
});
