import type { ServerResponse } from 'node:http';

/** Consoles connected at once; one more is refused with 503, so a runaway page costs bounded memory. */
const MAX_PAGES = 50;

/**
 * The console's live feed: a server-sent event stream per open console page
 * that carries the overview (revisions, tenant, stream counts) whenever
 * anything changes, however it changed (admin API, in-process admin, another
 * tab, a flag schedule turning, a client connecting). Bursts are coalesced
 * into one event per turn of the event loop.
 */
export class ConsoleFeed {
  /** Each open page and how to render its overview (undefined: its session ended). */
  private readonly pages = new Map<ServerResponse, () => string | undefined>();
  private flush: NodeJS.Immediate | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private closed = false;

  /** @param pingIntervalMs interval of the `: ping` keep-alive, in ms */
  constructor(private readonly pingIntervalMs: number) {}

  /**
   * Starts the event stream on `res` with the current overview, as `render`
   * makes it for this page's session (one line of JSON; undefined once the
   * session has ended, which ends the stream).
   */
  open(res: ServerResponse, render: () => string | undefined): void {
    if (this.closed || this.pages.size >= MAX_PAGES) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
      res.end('too many open consoles');
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    this.pages.set(res, render);
    res.once('close', () => {
      this.pages.delete(res);
      if (this.pages.size === 0) this.stopPings();
    });
    // A page whose server went away tries again after 1 s (browsers wait about 3 s by default).
    res.write(`retry: 1000\nevent: overview\ndata: ${render() ?? '{}'}\n\n`);
    this.pingTimer ??= setInterval(() => this.writeAll(': ping\n\n'), this.pingIntervalMs);
  }

  /** Something changed: every open console gets the new overview shortly, once per burst. */
  notify(): void {
    if (this.closed || this.pages.size === 0 || this.flush) return;
    this.flush = setImmediate(() => {
      this.flush = undefined;
      for (const [res, render] of this.pages) {
        const overview = render();
        if (overview === undefined) res.end();
        else this.write(res, `event: overview\ndata: ${overview}\n\n`);
      }
    });
  }

  /** Ends every console stream and stops the timers. */
  close(): void {
    this.closed = true;
    if (this.flush) clearImmediate(this.flush);
    this.flush = undefined;
    this.stopPings();
    for (const res of this.pages.keys()) res.end();
    this.pages.clear();
  }

  private writeAll(frame: string): void {
    for (const res of this.pages.keys()) this.write(res, frame);
  }

  private write(res: ServerResponse, frame: string): void {
    // A console that stopped reading is dropped; its page reconnects and starts from a fresh overview.
    if (res.writableLength > 1024 * 1024) res.destroy();
    else res.write(frame);
  }

  private stopPings(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = undefined;
  }
}
