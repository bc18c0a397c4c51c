import { request } from 'node:http';
import type { ChangeEvent, VaneClient } from '@vane/client';

/** Resolves with the first change event of `client` matching `predicate`; rejects after `timeoutMs` (a bound, not a sleep). */
export function waitForChange(
  client: VaneClient,
  predicate: (e: ChangeEvent) => boolean,
  timeoutMs = 5000,
): Promise<ChangeEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no matching change event within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = client.onChange((e) => {
      if (!predicate(e)) return;
      clearTimeout(timer);
      off();
      resolve(e);
    });
  });
}

/** Calls the local server's admin API over HTTP, as the console would (no keep-alive: nothing left open). */
export function adminPut(serverUrl: string, token: string, path: string, body: unknown): Promise<void> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${serverUrl}/admin/v1/${path}`,
      {
        method: 'PUT',
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve()
            : reject(new Error(`admin PUT ${path}: ${res.statusCode} ${Buffer.concat(chunks).toString()}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
