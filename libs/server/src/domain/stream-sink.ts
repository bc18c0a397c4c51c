/**
 * Where one open stream's bytes go: the port the {@link StreamHub} writes to.
 * The domain decides what each stream is sent and when; the HTTP edge
 * (`http/response-stream-sink.ts`) puts it on a `/v1/stream` response.
 */
export interface StreamSink {
  /** Answers that no stream can open (the hub is closed): `503`, and the connection closes. */
  refuse(): void;
  /** Starts the event stream: its status and headers, sent at once. */
  start(): void;
  /** Sends `chunk` as it is. */
  write(chunk: Buffer): void;
  /** Ends the stream, after `last` when given. */
  end(last?: Buffer): void;
  /** Drops the stream at once, with what it had not sent (a slow consumer). */
  destroy(): void;
  /** Whether the stream was ended: nothing more is sent. */
  readonly ended: boolean;
  /** Whether the stream was ended or dropped: writing to it does nothing. */
  readonly closed: boolean;
  /** Bytes written that the connection has not taken yet. */
  readonly queuedBytes: number;
  /** Calls `listener` once when the connection closes, whoever closed it. */
  onClose(listener: () => void): void;
}
