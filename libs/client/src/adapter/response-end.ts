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

/** Responses waited on, and what to call when each ends (several, when several adapters wait on one). */
const waiting = new WeakMap<ServerResponse, Callback | Callback[]>();
/** Each connection's responses waited on (one, unless requests are pipelined), for when it closes first. */
const waitingOnSocket = new WeakMap<Socket, Set<ServerResponse>>();
let subscribed = false;

/**
 * Calls `callback(response)` once `response` is done: sent completely, or
 * its connection closed before that (the client went away, the app
 * destroyed it). A response already done is called back at once.
 *
 * Why not `response.once('close', …)`, Node's usual way: Express gives every
 * request and response a prototype of its own app (`Object.setPrototypeOf`),
 * after which each response has a hidden class of its own and every
 * property the event emitter touches on it is looked up in V8's runtime.
 * Counted under callgrind on the benchmark's Express 5 app, a `close`
 * listener per response cost about 2 % of a request. Node's HTTP server
 * already publishes every finished response on the `http.server.response.finish`
 * diagnostics channel; one subscriber for the process finds the callback in a
 * WeakMap, and a connection gets one `close` listener for all the requests it
 * carries (keep-alive). Responses of other servers (HTTP/2's compat API, a
 * test double) get a `close` listener of their own.
 */
export function whenResponseEnds<R extends EndingResponse>(response: R, callback: ResponseEndCallback<R>): void {
  if (!(response instanceof ServerResponse)) {
    if (response.closed === true) call(callback, response);
    else response.once('close', () => call(callback, response));
    return;
  }
  const socket = response.socket;
  if (socket === null) {
    // Not attached yet (a pipelined request waits for the one before it), or already detached.
    if (response.writableFinished || response.destroyed) call(callback, response);
    else response.once('close', () => call(callback, response));
    return;
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
  const earlier = waiting.get(response);
  if (earlier === undefined) waiting.set(response, added);
  else if (Array.isArray(earlier)) earlier.push(added);
  else waiting.set(response, [earlier, added]);
  let responses = waitingOnSocket.get(socket);
  if (responses === undefined) {
    waitingOnSocket.set(socket, (responses = new Set()));
    socket.once('close', socketClosed);
  }
  responses.add(response);
}

/** The `http.server.response.finish` message: Node publishes it for every finished response. */
interface FinishMessage {
  readonly response: ServerResponse;
  readonly socket: Socket;
}

function responseFinished(message: unknown): void {
  const { response, socket } = message as FinishMessage;
  const callbacks = waiting.get(response);
  if (callbacks === undefined) return;
  waiting.delete(response);
  waitingOnSocket.get(socket)?.delete(response);
  callAll(callbacks, response);
}

function socketClosed(this: Socket): void {
  const responses = waitingOnSocket.get(this);
  waitingOnSocket.delete(this);
  if (responses === undefined) return;
  for (const response of responses) {
    const callbacks = waiting.get(response);
    waiting.delete(response);
    if (callbacks !== undefined) callAll(callbacks, response);
  }
}

function callAll(callbacks: Callback | Callback[], response: ServerResponse): void {
  if (!Array.isArray(callbacks)) return call(callbacks, response);
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
