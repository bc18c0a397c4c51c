import { Agent, type Dispatcher } from 'undici';

/**
 * An undici dispatcher that records every request the client sends
 * (`METHOD /path`), resolving `.localhost` names to 127.0.0.1 as the
 * client's own default dispatcher does. Close it after the client.
 */
export class CountingDispatcher {
  readonly requests: string[] = [];
  readonly #agent = new Agent({
    connect: {
      lookup: (_host, options, callback) => {
        if ((options as { all?: boolean }).all)
          (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [
            { address: '127.0.0.1', family: 4 },
          ]);
        else (callback as (e: null, a: string, f: number) => void)(null, '127.0.0.1', 4);
      },
    },
  });
  readonly dispatcher: Dispatcher = this.#agent.compose((dispatch) => (options, handler) => {
    this.requests.push(`${options.method} ${options.path}`);
    return dispatch(options, handler);
  });

  /** How many requests went to `path` (e.g. `/v1/flags/evaluate-ab`). */
  count(path: string): number {
    return this.requests.filter((r) => r.endsWith(` ${path}`)).length;
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}
