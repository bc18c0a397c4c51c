/**
 * A TLS certificate and key as a live resource, and the helper that keeps
 * a TLS (HTTPS) server's context current: new connections get the new
 * certificate, connections already open are left alone.
 *
 * @packageDocumentation
 */
import { readFile } from 'node:fs/promises';
import { createSecureContext, type SecureContextOptions, type Server as TlsServer } from 'node:tls';
import { InvalidArgumentError } from '../errors.js';
import type { LiveResourceDefinition, LiveResourceValues } from './live-resource-definition.js';
import type { LiveResource } from './live-resource.js';

/** Where a PEM comes from: a text secret holding it, or a file secret (read from its file). */
export type TlsPemSource = { readonly secret: string } | { readonly file: string };

/** Options of {@link tlsCertificate}. */
export interface TlsCertificateOptions {
  /** The certificate chain (PEM): leaf first, then intermediates. */
  readonly cert: TlsPemSource;
  /** The private key of the leaf certificate (PEM, unencrypted). */
  readonly key: TlsPemSource;
  /**
   * Trusted CA certificates (PEM), e.g. to check client certificates.
   * @default none: Node's default CAs
   */
  readonly ca?: TlsPemSource;
  /**
   * Options of every context built that do not come from secrets
   * (`minVersion`, `ciphers`, `ecdhCurve`…).
   * @default none
   */
  readonly context?: Omit<SecureContextOptions, 'cert' | 'key' | 'ca' | 'pfx' | 'passphrase'>;
  /**
   * Name of the live resource in logs and events.
   * @default 'tls'
   */
  readonly name?: string;
}

/**
 * The secure context options built from the secrets: `cert`, `key`, `ca`
 * (PEM text) and the static `context` options. Spread it into
 * `https.createServer()`, give it to `server.setSecureContext()`.
 */
export type TlsCertificate = SecureContextOptions & { readonly cert: string; readonly key: string };

function sourceKey(field: string, source: TlsPemSource | undefined): { secret?: string; file?: string } {
  if (source === undefined) return {};
  const s = source as { secret?: unknown; file?: unknown };
  const secret = typeof s.secret === 'string' && s.secret !== '' ? s.secret : undefined;
  const file = typeof s.file === 'string' && s.file !== '' ? s.file : undefined;
  if ((secret === undefined) === (file === undefined))
    throw new InvalidArgumentError(`tlsCertificate: ${field} must be { secret: 'key' } or { file: 'key' }`);
  return secret !== undefined ? { secret } : { file };
}

/**
 * A live resource definition for a TLS certificate and key held in Vane (as
 * text or file secrets): each build reads the PEMs and checks them with
 * `tls.createSecureContext()` (a key that does not match the certificate, or
 * a malformed PEM, fails the build and the certificate in service stays).
 * Open it with `client.liveResource()`, then keep a server current with
 * {@link keepSecureContextCurrent}.
 *
 * @throws InvalidArgumentError - a source that names neither or both of `secret` and `file`.
 * @example
 * ```ts
 * const tls = await vane.liveResource(tlsCertificate({ cert: { file: 'tls.cert' }, key: { file: 'tls.key' } }));
 * const server = https.createServer(tls.current, app);
 * keepSecureContextCurrent(server, tls);
 * ```
 */
export function tlsCertificate(options: TlsCertificateOptions): LiveResourceDefinition<TlsCertificate> {
  if (typeof options !== 'object' || options === null)
    throw new InvalidArgumentError('tlsCertificate: options must be an object');
  const parts = {
    cert: sourceKey('cert', options.cert),
    key: sourceKey('key', options.key),
    ...(options.ca === undefined ? {} : { ca: sourceKey('ca', options.ca) }),
  };
  const sources = Object.values(parts);
  const secrets = sources.flatMap((p) => (p.secret === undefined ? [] : [p.secret]));
  const secretFiles = sources.flatMap((p) => (p.file === undefined ? [] : [p.file]));
  const pem = async (values: LiveResourceValues, part: { secret?: string; file?: string }): Promise<string> =>
    part.secret !== undefined
      ? values.secrets[part.secret]!
      : readFile(values.secretFiles[part.file!]!, { encoding: 'utf8', signal: values.signal });
  return {
    name: options.name ?? 'tls',
    secrets,
    secretFiles,
    async create(values): Promise<TlsCertificate> {
      const built: TlsCertificate = {
        ...options.context,
        cert: await pem(values, parts.cert),
        key: await pem(values, parts.key),
        ...(parts.ca === undefined ? {} : { ca: await pem(values, parts.ca) }),
      };
      // Throws on a malformed PEM or a key that does not match the certificate: the build fails.
      createSecureContext(built);
      return built;
    },
    dispose: () => undefined,
  };
}

/**
 * Keeps a TLS server's certificate current: sets the resource's context on
 * the server now, and again after every rebuild, through
 * `server.setSecureContext()`. New connections get the new certificate;
 * connections already open keep theirs and are not dropped. Works with any
 * `tls.Server`: `https.createServer(app)` in Express, `app.getHttpServer()`
 * of a Nest app created with `httpsOptions`.
 *
 * @param server - the TLS or HTTPS server.
 * @param certificate - a resource opened from {@link tlsCertificate}.
 * @returns a function that stops following the resource.
 */
export function keepSecureContextCurrent(
  server: Pick<TlsServer, 'setSecureContext'>,
  certificate: LiveResource<TlsCertificate>,
): () => void {
  server.setSecureContext(certificate.current);
  return certificate.onEvent((event) => {
    if (event.type === 'rebuilt') server.setSecureContext(certificate.current);
  });
}
