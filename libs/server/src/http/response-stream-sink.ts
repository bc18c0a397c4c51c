import type { ServerResponse } from 'node:http';
import type { StreamSink } from '../domain/stream-sink.js';

/** A {@link StreamSink} on the HTTP response of a `/v1/stream` request (PROTOCOL §6). */
export class ResponseStreamSink implements StreamSink {
  constructor(private readonly res: ServerResponse) {}

  refuse(): void {
    this.res.writeHead(503, { connection: 'close' }).end();
  }

  start(): void {
    // The body ends when the connection does (no chunked framing; a stream is never reused), so a patch is
    // written to the socket as is: one write per stream, where chunked framing cost four and a deferred flush.
    this.res.removeHeader('transfer-encoding');
    this.res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'close',
      'x-accel-buffering': 'no',
    });
    this.res.flushHeaders();
  }

  write(chunk: Buffer): void {
    // The headers are out and the body is close-delimited: the socket's bytes are the body.
    if (this.res.socket) this.res.socket.write(chunk);
    else this.res.write(chunk);
  }

  end(last?: Buffer): void {
    if (last === undefined) this.res.end();
    else this.res.end(last);
  }

  destroy(): void {
    this.res.destroy();
  }

  get ended(): boolean {
    return this.res.writableEnded;
  }

  get closed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  get queuedBytes(): number {
    return this.res.writableLength;
  }

  onClose(listener: () => void): void {
    this.res.once('close', listener);
  }
}
