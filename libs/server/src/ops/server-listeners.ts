import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { listenUrl, type ListenAddress } from './listen-address.js';
import type { ListenerRoutes } from './listener-routes.js';
import type { TlsFiles } from './tls-files.js';

/** How the server's listeners are laid out. */
export interface ListenerPlan {
  readonly main: ListenAddress;
  /** The admin API and console on their own listener. */
  readonly admin?: ListenAddress;
  /** `/healthz`, `/readyz`, `/metrics` on their own listener (plain HTTP: for the platform, not the public). */
  readonly ops?: ListenAddress;
  /** Native TLS on the main and admin listeners. */
  readonly tls?: TlsFiles;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  /** The request handler of a listener serving `routes`. */
  handlerFor(routes: ListenerRoutes): RequestListener;
}

/** One listening server. */
export interface OpenListener {
  readonly server: Server | HttpsServer;
  readonly url: string;
  readonly port: number;
}

/** The open listeners. */
export interface OpenListeners {
  readonly main: OpenListener;
  readonly admin: OpenListener | undefined;
  readonly ops: OpenListener | undefined;
  /** Every listener, main first. */
  readonly all: readonly OpenListener[];
}

/**
 * Opens the main listener and, when asked, the admin and ops listeners.
 * The main one serves `/v1/`, plus the admin API and console unless they
 * have a listener of their own, plus the ops routes unless they have one
 * (or else go with the admin listener). On failure, closes what it opened.
 */
export async function openListeners(plan: ListenerPlan): Promise<OpenListeners> {
  const opened: OpenListener[] = [];
  try {
    const main = await open(
      plan,
      plan.main,
      { service: true, admin: !plan.admin, ops: !plan.ops && !plan.admin },
      true,
    );
    opened.push(main);
    const admin = plan.admin
      ? await open(plan, plan.admin, { service: false, admin: true, ops: !plan.ops }, true)
      : undefined;
    if (admin) opened.push(admin);
    const ops = plan.ops ? await open(plan, plan.ops, { service: false, admin: false, ops: true }, false) : undefined;
    if (ops) opened.push(ops);
    return { main, admin, ops, all: opened };
  } catch (error) {
    await Promise.all(opened.map((l) => new Promise((resolve) => l.server.close(resolve))));
    throw error;
  }
}

async function open(
  plan: ListenerPlan,
  address: ListenAddress,
  routes: ListenerRoutes,
  tlsAllowed: boolean,
): Promise<OpenListener> {
  const options = {
    noDelay: true,
    requireHostHeader: false,
    // Both bound only the reading of a request: a stream's response runs as long as it likes.
    headersTimeout: plan.headersTimeoutMs,
    requestTimeout: plan.requestTimeoutMs,
    // How often the limits are checked; the default (30 s) would let a short limit run long.
    connectionsCheckingInterval: Math.min(1000, Math.max(10, Math.floor(plan.headersTimeoutMs / 4))),
  };
  const handler = plan.handlerFor(routes);
  const tls = tlsAllowed ? plan.tls : undefined;
  const server = tls ? createHttpsServer({ ...options, ...tls.read() }, handler) : createHttpServer(options, handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  if (tls) tls.serve(server as HttpsServer);
  const port = (server.address() as AddressInfo).port;
  return { server, port, url: listenUrl(tls ? 'https' : 'http', address.host, port) };
}
