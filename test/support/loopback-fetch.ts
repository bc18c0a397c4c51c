/**
 * `fetch` for the specs, in Node: resolves `*.localhost` to 127.0.0.1 (as
 * browsers do; Node's resolver may not) and records every request and its
 * status, so a spec can count what reached the network.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import { localhostAwareLookup } from '../../libs/client/src/http/transport.js';

/** One request sent, with the status it got (0 for a network failure). */
export interface SentRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** When it was sent (`Date.now()`). */
  readonly at: number;
  status: number;
}

/** A recording `fetch` and what it sent. */
export interface LoopbackFetch {
  readonly fetch: typeof fetch;
  readonly sent: SentRequest[];
  /** Requests to `path`. */
  count(path: string): number;
  close(): Promise<void>;
}

/** A fresh recording `fetch` over its own connection pool. */
export function loopbackFetch(): LoopbackFetch {
  // `@vane/client`'s own rule: `*.localhost` is loopback (PROTOCOL §1).
  const agent = new Agent({ connect: { lookup: localhostAwareLookup } });
  const sent: SentRequest[] = [];
  const recorded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const request: SentRequest = {
      method: init?.method ?? 'GET',
      path: url.pathname,
      headers,
      at: Date.now(),
      status: 0,
    };
    sent.push(request);
    const res = (await undiciFetch(url, { ...(init as object), dispatcher: agent })) as unknown as Response;
    request.status = res.status;
    return res;
  };
  return {
    fetch: recorded as typeof fetch,
    sent,
    count: (path) => sent.filter((r) => r.path === path).length,
    close: () => agent.close(),
  };
}

/** A `Storage` in memory (what `localStorage` is to the client). */
export class MemoryStorage {
  readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
}

/** A `document` whose visibility the spec sets. */
export class FakeDocument {
  visibilityState: 'visible' | 'hidden' = 'visible';
  readonly #listeners = new Set<() => void>();
  addEventListener(_type: 'visibilitychange', listener: () => void): void {
    this.#listeners.add(listener);
  }
  removeEventListener(_type: 'visibilitychange', listener: () => void): void {
    this.#listeners.delete(listener);
  }
  /** Sets the state and dispatches `visibilitychange`. */
  set(state: 'visible' | 'hidden'): void {
    this.visibilityState = state;
    for (const listener of this.#listeners) listener();
  }
}
