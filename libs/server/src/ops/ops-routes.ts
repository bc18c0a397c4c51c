import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readiness } from '../observability/readiness.js';
import type { ServerMetrics } from './server-metrics.js';

/** What the ops routes read. */
export interface OpsRouteContext {
  readonly readiness: Readiness;
  readonly metrics: ServerMetrics;
}

/**
 * Serves `/healthz` (the process answers: always `200`), `/readyz` (`200`
 * while every readiness check passes, `503` otherwise, with each check's
 * outcome) and `/metrics` (Prometheus text). Returns false for any other
 * path. No credential: bind them where only the platform reaches them.
 */
export async function handleOpsRoute(
  ctx: OpsRouteContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<boolean> {
  const method = req.method ?? 'GET';
  if (path !== '/healthz' && path !== '/readyz' && path !== '/metrics') return false;
  if (method !== 'GET' && method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
    return true;
  }
  if (path === '/healthz') {
    send(res, 200, 'application/json', JSON.stringify({ status: 'ok' }));
  } else if (path === '/readyz') {
    const report = await ctx.readiness.report();
    send(res, report.ready ? 200 : 503, 'application/json', JSON.stringify(report));
  } else {
    const { contentType, body } = await ctx.metrics.scrape();
    send(res, 200, contentType, body);
  }
  return true;
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
