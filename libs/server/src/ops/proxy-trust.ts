import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';

/**
 * Which peers may speak for a client (`--trust-proxy`): addresses, CIDRs or
 * the names `loopback`, `linklocal`, `uniquelocal`, as Express's
 * `trust proxy`, compiled by the same `proxy-addr`. Only a request whose
 * peer is trusted has its `X-Forwarded-For`, `-Host` and `-Proto` believed;
 * with no list nothing is.
 */
export class ProxyTrust {
  readonly #trust: ((address: string, hop: number) => boolean) | undefined;

  /** @param trusted - addresses, CIDRs or proxy-addr names; empty trusts no proxy. */
  constructor(trusted: readonly string[] = []) {
    this.#trust = trusted.length === 0 ? undefined : proxyAddr.compile([...trusted]);
  }

  /** Whether the list is valid: returns what is wrong with the first bad entry, or undefined. */
  static check(entry: string): string | undefined {
    try {
      proxyAddr.compile(entry);
      return undefined;
    } catch {
      return 'expected an IP address, a CIDR (10.0.0.0/8) or loopback, linklocal, uniquelocal';
    }
  }

  /**
   * The client's address: `X-Forwarded-For` walked from the right, the peer
   * first, and the first address not in the list taken (what Express's
   * `trust proxy` does with a list): entries a client forged sit to the
   * left of the one its proxy added and are never reached. Without a list,
   * the peer.
   */
  clientAddress(req: IncomingMessage): string {
    if (!this.#trust) return req.socket.remoteAddress ?? 'unknown';
    return proxyAddr(req, this.#trust);
  }

  /** The host the client asked for: `X-Forwarded-Host` (its first value) from a trusted peer, else `Host`. */
  host(req: IncomingMessage): string | undefined {
    const forwarded = this.#trustedHeader(req, 'x-forwarded-host');
    return forwarded ?? req.headers.host;
  }

  /** `https` or `http` as the client used it: `X-Forwarded-Proto` from a trusted peer, else this connection's. */
  protocol(req: IncomingMessage): 'http' | 'https' {
    const forwarded = this.#trustedHeader(req, 'x-forwarded-proto')?.toLowerCase();
    if (forwarded === 'https' || forwarded === 'http') return forwarded;
    return (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  }

  /** The first value of a forwarded header, when the peer is trusted. */
  #trustedHeader(req: IncomingMessage, name: string): string | undefined {
    if (!this.#trust || !this.#trust(req.socket.remoteAddress ?? '', 0)) return undefined;
    const raw = req.headers[name];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.split(',')[0]?.trim();
    return value === '' ? undefined : value;
  }
}
