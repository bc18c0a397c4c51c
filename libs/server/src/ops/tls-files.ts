import { readFileSync, statSync } from 'node:fs';
import type { Server as HttpsServer } from 'node:https';
import { ConfigError } from '../errors/config-error.js';
import type { VaneServerLogger } from '../observability/logger.js';

/** The certificate chain and private key of the native TLS listener, as PEM files. */
export interface TlsFilePaths {
  readonly certPath: string;
  readonly keyPath: string;
}

/**
 * Reads the TLS files, and reloads them into every listener when either
 * changes on disk (a renewed certificate, a rotated Kubernetes secret): new
 * connections get the new pair, open ones (streams) keep theirs. The files
 * are polled, which survives the rename-over that Kubernetes and certbot
 * use, and compared with what was last read (not with a first poll that may
 * come after a change). A pair that does not load is logged and the old one
 * stays.
 */
export class TlsFiles {
  readonly #servers: HttpsServer[] = [];
  #timer: NodeJS.Timeout | undefined;
  #read = '';

  constructor(
    readonly paths: TlsFilePaths,
    private readonly logger: VaneServerLogger,
    /** How often the files are checked, in ms. */
    private readonly intervalMs: number,
  ) {}

  /** The current files' contents; throws (naming the file) when one cannot be read. */
  read(): { cert: Buffer; key: Buffer } {
    this.#read = this.#fingerprint();
    return { cert: readTlsFile(this.paths.certPath, '--tls-cert'), key: readTlsFile(this.paths.keyPath, '--tls-key') };
  }

  /** Reloads `server` too on every change; starts watching on the first. */
  serve(server: HttpsServer): void {
    this.#servers.push(server);
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(this.#check, this.intervalMs);
    this.#timer.unref();
  }

  /** Stops watching. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Both files' identity, size and modification time: a change to either changes it. */
  #fingerprint(): string {
    return [this.paths.certPath, this.paths.keyPath]
      .map((path) => {
        try {
          const stats = statSync(path, { throwIfNoEntry: false });
          return stats === undefined ? 'missing' : `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
        } catch (error) {
          return (error as NodeJS.ErrnoException).code ?? 'unreadable';
        }
      })
      .join('|');
  }

  readonly #check = (): void => {
    if (this.#fingerprint() === this.#read) return;
    try {
      const pair = this.read();
      for (const server of this.#servers) server.setSecureContext(pair);
      this.logger.info('reloaded the TLS certificate and key', {
        event: 'tls_reloaded',
        cert_file: this.paths.certPath,
      });
    } catch (error) {
      // Often a half-written pair (the certificate renewed before the key): the next change loads it.
      this.logger.warn(`could not reload TLS files, keeping the previous pair: ${(error as Error).message}`, {
        event: 'tls_reload_failed',
      });
    }
  };
}

function readTlsFile(path: string, setting: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(setting, `cannot read ${path} (${code})`, { cause: error });
  }
}
