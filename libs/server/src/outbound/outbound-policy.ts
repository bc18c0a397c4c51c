/**
 * Where the server may send requests of its own (a trust's `jwks_url`, its
 * `sts_endpoint`): URLs an admin token can set, so without a policy a token
 * could make the server reach its own network (SSRF). Only `https:`, and
 * never to an internal address, unless the operator admits it with
 * `--allow-outbound` (an origin such as `http://127.0.0.1:8080`, or a
 * network such as `10.20.0.0/16`).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { OutboundRefusedError } from '../errors/outbound-refused-error.js';

/** Networks never requested unless admitted: loopback, link-local, private, unique-local, and their kin. */
const INTERNAL_NETWORKS: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'], // "this network"
  ['10.0.0.0', 8, 'ipv4'], // private
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local, cloud metadata services
  ['172.16.0.0', 12, 'ipv4'], // private
  ['192.168.0.0', 16, 'ipv4'], // private
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, broadcast
  ['::', 128, 'ipv6'], // unspecified
  ['::1', 128, 'ipv6'], // loopback
  ['fc00::', 7, 'ipv6'], // unique-local
  ['fe80::', 10, 'ipv6'], // link-local
  ['ff00::', 8, 'ipv6'], // multicast
];

/** One entry of `--allow-outbound`: an origin (any address, `http:` too) or a network (`https:` to it). */
type AllowEntry = { readonly origin: string } | { readonly network: readonly [string, number, 'ipv4' | 'ipv6'] };

/**
 * The operator's outbound policy. Checks a URL before a request and each
 * address a host name resolves to as the connection is made (the address
 * checked is the one connected to: a name that resolves to a public address
 * for the check and an internal one for the connection cannot slip through).
 */
export class OutboundPolicy {
  readonly #origins = new Set<string>();
  readonly #allowed = new BlockList();
  readonly #internal = new BlockList();

  /**
   * @param allow - `--allow-outbound` entries: origins (`http://127.0.0.1:8080`, `https://keys.corp.internal`)
   *   and networks (`10.20.0.0/16`, `fd00::/8`, or one address).
   * @throws OutboundRefusedError naming an entry that is neither.
   */
  constructor(allow: readonly string[] = []) {
    for (const [address, prefix, family] of INTERNAL_NETWORKS) this.#internal.addSubnet(address, prefix, family);
    for (const text of allow) {
      const entry = parseAllowEntry(text);
      if ('origin' in entry) this.#origins.add(entry.origin);
      else this.#allowed.addSubnet(...entry.network);
    }
  }

  /** What is wrong with one `--allow-outbound` entry, in words; undefined when it is an origin or a network. */
  static check(entry: string): string | undefined {
    try {
      parseAllowEntry(entry);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  /**
   * Checks what can be checked before connecting: the scheme, and a host
   * that is an address.
   *
   * @throws OutboundRefusedError naming the host and the reason.
   */
  checkUrl(url: URL): void {
    if (this.#origins.has(url.origin)) return;
    if (url.protocol !== 'https:') {
      throw new OutboundRefusedError(
        `${url.protocol}//${url.host} is refused: outbound requests use https (or --allow-outbound ${url.origin})`,
      );
    }
    const host = bareHost(url.hostname);
    if (isIP(host) !== 0 && !this.allowsAddress(url, host)) throw refusedAddress(url, host);
  }

  /** Whether a request to `url` may connect to `address` (one its host resolved to). */
  allowsAddress(url: URL, address: string): boolean {
    if (this.#origins.has(url.origin)) return true;
    const [plain, family] = familyOf(address);
    return !this.#internal.check(plain, family) || this.#allowed.check(plain, family);
  }

  /**
   * The `lookup` to connect with for `url` (Node's `http.request` and
   * `net.connect` option): resolves as the system does, and fails with
   * {@link OutboundRefusedError} when any address the host resolves to is
   * not allowed, so the connection is made only to an address checked here.
   */
  lookupFor(url: URL): LookupFunction {
    return (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
        if (error) return callback(error, '', 0);
        const refused = addresses.find((entry) => !this.allowsAddress(url, entry.address));
        if (refused !== undefined) return callback(refusedAddress(url, refused.address), '', 0);
        if ((options as { all?: boolean }).all) {
          (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
          return;
        }
        const first = addresses[0];
        if (first === undefined) return callback(new OutboundRefusedError(`${url.host} resolves to nothing`), '', 0);
        callback(null, first.address, first.family);
      });
    };
  }
}

function refusedAddress(url: URL, address: string): OutboundRefusedError {
  return new OutboundRefusedError(
    `${url.host} is refused: it is (or resolves to) the internal address ${address}; ` +
      `an operator admits it with --allow-outbound ${url.origin} or a network holding ${address}`,
  );
}

/** An address and its family, an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) as the IPv4 address it is. */
function familyOf(address: string): [string, 'ipv4' | 'ipv6'] {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return [mapped[1]!, 'ipv4'];
  return isIP(address) === 6 ? [address, 'ipv6'] : [address, 'ipv4'];
}

/** A URL's host name without the brackets of an IPv6 literal. */
function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

function parseAllowEntry(text: string): AllowEntry {
  const trimmed = text.trim();
  if (/^https?:\/\//i.test(trimmed)) {
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      throw new OutboundRefusedError('an --allow-outbound entry starting with http:// or https:// is not a URL');
    }
    if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
      // Named by its origin only: what follows it may be a credential.
      throw new OutboundRefusedError(
        `--allow-outbound ${url.origin}…: give an origin (scheme, host and port), no path or credentials`,
      );
    }
    return { origin: url.origin };
  }
  const [address = '', prefixText, extra] = trimmed.split('/');
  const family = isIP(address);
  const prefix = prefixText === undefined ? (family === 6 ? 128 : 32) : Number(prefixText);
  const max = family === 6 ? 128 : 32;
  if (family === 0 || extra !== undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > max) {
    throw new OutboundRefusedError(
      `--allow-outbound ${JSON.stringify(trimmed)} is neither an origin (https://host:port) nor a network (10.0.0.0/8)`,
    );
  }
  return { network: [address, prefix, family === 6 ? 'ipv6' : 'ipv4'] };
}
