/**
 * When a Node HTTP response is done (finished, or its connection gone):
 * where the adapters let go of the revision a request was pinned to.
 *
 * @packageDocumentation
 */
import { subscribe } from 'node:diagnostics_channel';
import { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** The response objects {@link whenResponseEnds} accepts: Node's own, or any that emits `close` (HTTP/2's compat response). */
export interface EndingResponse {
  once(event: 'close', listener: () => void): unknown;
  /** True once it closed (read only on responses that are not Node's `ServerResponse`). */
  readonly closed?: boolean;
}

/** Called once with the response that ended (a function shared by every response saves a closure per request). */
export type ResponseEndCallback<R extends EndingResponse = EndingResponse> = (response: R) => void;

type Callback = ResponseEndCallback<ServerResponse>;

/**
 * What one connection waits on. The response it carries now, and its first
 * callback, sit in two fields: a keep-alive connection reuses them for each
 * of its requests, so waiting on a response costs no allocation and no
 * `WeakMap` entry keyed by a short-lived object (an entry with a young key
 * is work at every young-generation collection; figures in
 * docs/benchmarks.md, "Guarded routes"). Pipelined requests, and further
 * callbacks on one response, wait in `more`.
 */
class ConnectionWaits {
  /** The response in the fields below, until it ends. */
  response: ServerResponse | undefined = undefined;
  callback: Callback | undefined = undefined;
  /** Other responses of the connection waited on, with their callbacks; also a response's callbacks after the first. */
  more: Map<ServerResponse, Callback[]> | undefined = undefined;
}

/** Each connection's waits (a connection gets one `close` listener for all the requests it carries). */
const waitsOnSocket = new WeakMap<Socket, ConnectionWaits>();
let subscribed = false;

/**
 * Calls `callback(response)` once `response` is done: sent completely, or
 * its connection closed before that (the client went away, the app
 * destroyed it). A response already done is called back at once.
 *
 * Why not `response.once('close', …)`, Node's usual way: Express swaps each
 * response's prototype, so every listener added to one is a slow-path
 * property write (docs/benchmarks.md, "Guarded routes"). Node's HTTP server
 * already publishes every finished response on the `http.server.response.finish`
 * diagnostics channel; one subscriber for the process finds the callback on
 * the response's connection (see `ConnectionWaits`), and a connection
 * gets one `close` listener for all the requests it carries (keep-alive).
 * Responses of other servers (HTTP/2's compat API, a test double) get a
 * `close` listener of their own.
 */
export function whenResponseEnds<R extends EndingResponse>(response: R, callback: ResponseEndCallback<R>): void {
  if (!(response instanceof ServerResponse)) {
    if (response.closed === true) call(callback, response);
    else response.once('close', () => call(callback, response));
    return;
  }
  let socket = response.socket;
  if (socket === null) {
    // Already detached (done), or not attached yet: a pipelined request's response waits for the one
    // before it. Node emits no `close` on such a response when the client goes away, so it waits on
    // its request's connection.
    if (response.writableFinished || response.destroyed) return call(callback, response);
    socket = response.req?.socket ?? null;
    if (socket === null) {
      response.once('close', () => call(callback, response));
      return;
    }
  }
  if (socket.destroyed) {
    call(callback, response);
    return;
  }
  if (!subscribed) {
    subscribe('http.server.response.finish', responseFinished);
    subscribed = true;
  }
  // Called back with this same response, so the callback gets the type it was registered with.
  const added = callback as unknown as Callback;
  let waits = waitsOnSocket.get(socket);
  if (waits === undefined) {
    waitsOnSocket.set(socket, (waits = new ConnectionWaits()));
    socket.once('close', socketClosed);
  }
  // (A response already waiting in `more` keeps its callbacks there, in the order registered.)
  if (waits.response === undefined && waits.more?.has(response) !== true) {
    waits.response = response;
    waits.callback = added;
    return;
  }
  const more = (waits.more ??= new Map());
  const list = more.get(response);
  if (list === undefined) more.set(response, [added]);
  else list.push(added);
}

/** The `http.server.response.finish` message: Node publishes it for every finished response. */
interface FinishMessage {
  readonly response: ServerResponse;
  readonly socket: Socket;
}

function responseFinished(message: unknown): void {
  const { response, socket } = message as FinishMessage;
  const waits = waitsOnSocket.get(socket);
  if (waits !== undefined) callWaiting(waits, response);
}

/** Calls (and forgets) the callbacks `waits` holds for `response`: the one in its fields first, in the order registered. */
function callWaiting(waits: ConnectionWaits, response: ServerResponse): void {
  let first: Callback | undefined;
  if (waits.response === response) {
    first = waits.callback;
    waits.response = undefined;
    waits.callback = undefined;
  }
  const others = waits.more?.get(response);
  if (others !== undefined) waits.more!.delete(response);
  if (first !== undefined) call(first, response);
  if (others !== undefined) callAll(others, response);
}

function socketClosed(this: Socket): void {
  const waits = waitsOnSocket.get(this);
  waitsOnSocket.delete(this);
  if (waits === undefined) return;
  if (waits.response !== undefined) callWaiting(waits, waits.response);
  const more = waits.more;
  if (more === undefined) return;
  waits.more = undefined;
  for (const [response, callbacks] of more) callAll(callbacks, response);
}

function callAll(callbacks: readonly Callback[], response: ServerResponse): void {
  for (const callback of callbacks) call(callback, response);
}

/**
 * Calls an end callback. They are the adapters' own (letting go of a
 * revision), which do not throw; were one to, it must not reach Node's HTTP
 * server (a diagnostics subscriber's throw becomes an uncaught exception),
 * nor stop the other responses of a closing connection from being called.
 */
function call<R>(callback: (response: R) => void, response: R): void {
  try {
    callback(response);
  } catch {
    // Nothing to report to: see above.
  }
}
