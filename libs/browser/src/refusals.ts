/**
 * What a public key refuses: every secret read and write, before any
 * request, with the code `@vane/client` raises for the same call
 * (SERVICE-SPEC client rules 5 and 6).
 *
 * @packageDocumentation
 */
import { PublicKeySecretAccessError } from '@vane/client-core';

function refuse(): never {
  throw new PublicKeySecretAccessError();
}

/**
 * The secret methods of `@vane/client`, each refused: a page that calls one
 * learns at once, not from a request the service would refuse. The base of
 * `VaneBrowserClient`.
 */
export abstract class PublicKeyRefusals {
  /** Refused: a public key reads no secret. @throws PublicKeySecretAccessError - always, with no request. */
  secret(_key: string): never {
    return refuse();
  }
  /** Refused: a public key reads no secret. @throws PublicKeySecretAccessError - always, with no request. */
  secretFile(_key: string): never {
    return refuse();
  }
  /** Refused: a public key reads no secret. @throws PublicKeySecretAccessError - always, with no request. */
  secretInfo(_key: string): never {
    return refuse();
  }
  /** Refused: a public key reads no secret. @throws PublicKeySecretAccessError - always, with no request. */
  requireSecret(_key: string): never {
    return refuse();
  }
  /** Refused: a public key reads no secret. @throws PublicKeySecretAccessError - always, with no request. */
  requireSecretFile(_key: string): never {
    return refuse();
  }
  /** Refused: a public key writes no secret. Rejects with `VANE_PUBLIC_KEY_SECRET_ACCESS`, with no request. */
  async setSecret(_key: string, _value: string): Promise<never> {
    return refuse();
  }
  /** Refused: a public key writes no secret. Rejects with `VANE_PUBLIC_KEY_SECRET_ACCESS`, with no request. */
  async deleteSecret(_key: string): Promise<never> {
    return refuse();
  }
  /** Refused: a public key writes no secret. Rejects with `VANE_PUBLIC_KEY_SECRET_ACCESS`, with no request. */
  async deleteSecretVersion(_key: string, _version: number): Promise<never> {
    return refuse();
  }
}
