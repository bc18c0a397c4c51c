/**
 * What a public key refuses: every secret read and write, before any
 * request, with the code `@vane/client` raises for the same call
 * (SERVICE-SPEC client rules 5 and 6).
 *
 * @packageDocumentation
 */
import { PublicKeySecretAccessError } from '@vane/client-core';

/**
 * The secret methods of `@vane/client`, each refused: a page that calls one
 * learns at once, not from a request the service would refuse.
 */
export interface PublicKeyRefusals {
  /** Refused: a public key reads no secret. @throws PublicKeySecretAccessError - always, with no request. */
  secret(key: string): never;
  /** Refused: a public key reads no secret. @throws PublicKeySecretAccessError - always, with no request. */
  secretFile(key: string): never;
  /** Refused: a public key reads no secret. @throws PublicKeySecretAccessError - always, with no request. */
  secretInfo(key: string): never;
  /** Refused: a public key reads no secret. @throws PublicKeySecretAccessError - always, with no request. */
  requireSecret(key: string): never;
  /** Refused: a public key reads no secret. @throws PublicKeySecretAccessError - always, with no request. */
  requireSecretFile(key: string): never;
  /** Refused: a public key writes no secret. Rejects with `VANE_PUBLIC_KEY_SECRET_ACCESS`, with no request. */
  setSecret(key: string, value: string): Promise<never>;
  /** Refused: a public key writes no secret. Rejects with `VANE_PUBLIC_KEY_SECRET_ACCESS`, with no request. */
  deleteSecret(key: string): Promise<never>;
  /** Refused: a public key writes no secret. Rejects with `VANE_PUBLIC_KEY_SECRET_ACCESS`, with no request. */
  deleteSecretVersion(key: string, version: number): Promise<never>;
}

/**
 * The refusals, for a client to take as its own members: one loop over their
 * names (the reads throw; the writes, which return a promise in
 * `@vane/client`, reject).
 */
export function refusals(): PublicKeyRefusals {
  const methods: Partial<PublicKeyRefusals> = {};
  const refuse = (): never => {
    throw new PublicKeySecretAccessError();
  };
  for (const name of ['secret', 'secretFile', 'secretInfo', 'requireSecret', 'requireSecretFile'] as const)
    methods[name] = refuse;
  for (const name of ['setSecret', 'deleteSecret', 'deleteSecretVersion'] as const)
    methods[name] = async () => refuse();
  return methods as PublicKeyRefusals;
}
