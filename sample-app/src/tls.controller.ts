/**
 * `GET /tls`: a file secret. `@Secret(key, { file: true })` injects the path
 * of a private 0600 file that the client rewrites when the secret changes
 * (what a TLS library wants). The answer describes the file, not its content.
 */
import { statSync } from 'node:fs';
import { Controller, Get } from '@nestjs/common';
import { Secret, VaneClient } from '@vane/nestjs';

@Controller('tls')
export class TlsController {
  constructor(private readonly vane: VaneClient) {}

  // #region file-secret
  @Get()
  tls(@Secret('tls.client_pem', { file: true }) pemPath: string): {
    exists: boolean;
    bytes: number;
    version: number | undefined;
  } {
    const stat = statSync(pemPath, { throwIfNoEntry: false });
    return {
      exists: stat !== undefined,
      bytes: stat?.size ?? 0,
      version: this.vane.secretInfo('tls.client_pem')?.version,
    };
  }
  // #endregion file-secret
}
