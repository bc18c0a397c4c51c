/**
 * The nginx configuration `docs/operating.md` (the server's operating guide)
 * prints, read from the guide itself so a test of it cannot drift from what
 * users copy. Only
 * what must differ on a test machine is replaced: the upstream addresses
 * (loopback ports), the `listen` addresses (loopback ports) and the
 * certificate files (generated ones); every other line runs as printed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './samples.js';

/** The server's operating guide, where the nginx blocks are printed. */
export const OPERATING_GUIDE = join(ROOT, 'docs/operating.md');

/** Every fenced `nginx` block of the operating guide, in order, as printed. */
export function guideNginxBlocks(guide = readFileSync(OPERATING_GUIDE, 'utf8')): string[] {
  return [...guide.matchAll(/```nginx\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/** The guide's fleet block: the one with an `upstream`. */
export function guideFleetBlock(): string {
  const block = guideNginxBlocks().find((b) => /^upstream /m.test(b));
  if (block === undefined) throw new Error(`${OPERATING_GUIDE} prints no nginx block with an upstream`);
  return block;
}

/** What {@link adaptNginxBlock} puts in place of the guide's addresses and files. */
export interface NginxBlockSites {
  /** Loopback ports of the replicas, in the order of the block's `server` lines. */
  readonly upstreams?: readonly number[];
  /** Loopback port for the plain `listen` (the block's `listen 80;`). */
  readonly httpPort?: number;
  /** Loopback port for `listen 443 ssl;`. */
  readonly httpsPort?: number;
  /** PEM files for `ssl_certificate` and `ssl_certificate_key`. */
  readonly certPath?: string;
  readonly keyPath?: string;
}

/**
 * `block` with its addresses and certificate files replaced, each only when
 * given; a `listen` line whose port is not given is dropped (a test serving
 * plain HTTP only). Throws when the block has fewer `server` lines in its
 * upstream than ports given, so a guide that changes shape fails loudly.
 */
export function adaptNginxBlock(block: string, sites: NginxBlockSites): string {
  let upstream = 0;
  const lines = block.split('\n').flatMap((line) => {
    const server = /^(\s*server )(\S+)(.*;)$/.exec(line);
    if (server && sites.upstreams) {
      const port = sites.upstreams[upstream++];
      return port === undefined ? [] : [`${server[1]}127.0.0.1:${port}${server[3]}`];
    }
    const listen = /^(\s*listen )(\S+)( ssl)?;$/.exec(line);
    if (listen) {
      const port = listen[3] ? sites.httpsPort : sites.httpPort;
      return port === undefined ? [] : [`${listen[1]}127.0.0.1:${port}${listen[3] ?? ''};`];
    }
    const cert = /^(\s*ssl_certificate(?:_key)? )\S+;$/.exec(line);
    if (cert) {
      const path = line.includes('ssl_certificate_key') ? sites.keyPath : sites.certPath;
      // Without TLS, the certificate lines go with the listen line they serve.
      if (sites.httpsPort === undefined && path === undefined) return [];
      return [`${cert[1]}${path ?? '/nonexistent'};`];
    }
    return [line];
  });
  if (sites.upstreams && upstream < sites.upstreams.length) {
    throw new Error(`the guide's upstream has ${upstream} server lines, the test ${sites.upstreams.length} replicas`);
  }
  return lines.join('\n');
}
