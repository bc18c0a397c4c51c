import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { VaneClient } from '@vane/client';

/**
 * Closes the client when the app shuts down (`app.close()`, or a signal with
 * `enableShutdownHooks()`): stream, timers and sockets are released and file
 * secrets are removed from disk. Runs in `onApplicationShutdown`, after the
 * HTTP server stopped taking requests, so requests in flight keep their secrets.
 */
@Injectable()
export class VaneLifecycle implements OnApplicationShutdown {
  constructor(private readonly client: VaneClient) {}

  /** Closes the client (idempotent). */
  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
