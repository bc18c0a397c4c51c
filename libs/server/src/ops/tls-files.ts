import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import type { Server as HttpsServer } from 'node:https';
import { ConfigError } from '../config/config-error.js';
import type { LocalServerLogger } from '../logger.js';

/** The certificate chain and private key of the native TLS listener, as PEM files. */
export interface TlsFilePaths {
  readonly certPath: string;
  readonly keyPath: string;
}

/**
 * Reads the TLS files, and reloads them into every listener when either
 * changes on disk (a renewed certificate, a rotated Kubernetes secret): new
 * connections get the new pair, open ones (streams) keep theirs. The files
 * are polled (`fs.watchFile`), which survives the rename-over that
 * Kubernetes and certbot use. A pair that does not load is logged and the
 * old one stays.
 */
export class TlsFiles {
  readonly #servers: HttpsServer[] = [];
  #watching = false;

  constructor(
    readonly paths: TlsFilePaths,
    private readonly logger: LocalServerLogger,
    private readonly intervalMs = 1000,
  ) {}

  /** The current files' contents; throws (naming the file) when one cannot be read. */
  read(): { cert: Buffer; key: Buffer } {
    return { cert: readTlsFile(this.paths.certPath, '--tls-cert'), key: readTlsFile(this.paths.keyPath, '--tls-key') };
  }

  /** Reloads `server` too on every change; starts watching on the first. */
  serve(server: HttpsServer): void {
    this.#servers.push(server);
    if (this.#watching) return;
    this.#watching = true;
    for (const path of [this.paths.certPath, this.paths.keyPath]) {
      watchFile(path, { interval: this.intervalMs, persistent: false }, this.#onChange);
    }
  }

  /** Stops watching. */
  close(): void {
    if (!this.#watching) return;
    this.#watching = false;
    for (const path of [this.paths.certPath, this.paths.keyPath]) unwatchFile(path, this.#onChange);
  }

  readonly #onChange = (current: Stats, previous: Stats): void => {
    if (current.mtimeMs === previous.mtimeMs && current.size === previous.size) return;
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
