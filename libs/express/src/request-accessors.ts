/**
 * Where a request keeps its `req.vane` accessors, and how its response lets
 * go of their revisions.
 *
 * @packageDocumentation
 */
import { IncomingMessage } from 'node:http';
import { Http2ServerRequest } from 'node:http2';
import { whenResponseEnds } from '@vane/client';
import type { Request, Response } from 'express';
import type { RequestVaneAccessor } from './request-vane.accessor.js';

/**
 * Each request's accessor of the last `VaneExpress` that touched it, linked
 * to the others' (`nextOnRequest`; an app usually mounts one).
 *
 * Why a `WeakMap` and not a property of the request: Express gives every
 * request its app's prototype (`Object.setPrototypeOf`), after which V8
 * adds a property to it in its runtime, building a new hidden class and
 * copying the request's forty-odd property descriptors each time. Counted
 * under callgrind on the benchmark's Express 5 app (garbage collection on
 * the main thread, 10 connections), that one property cost 18,000
 * instructions of a 700,000-instruction request, and the copies made
 * garbage of their own. A `WeakMap` entry costs the request nothing of the
 * sort (its identity hash needs no new hidden class).
 *
 * The catch: V8's young-generation collector treats a `WeakMap`'s values as
 * strong, so an accessor that refers to its request would keep every
 * finished request alive until a full collection (measured: 6.5 % of a
 * request). An accessor therefore lets go of its request once the response
 * is done (`letGoOfRequest`, on the `whenResponseEnds` callback every
 * request gets), and `req.vane` hands it back if code still running for the
 * request reads it later.
 */
const accessorsByRequest = new WeakMap<Request, RequestVaneAccessor>();

/** The accessor `owner` made for a request, if any, found from `last`, the request's {@link lastAccessorOf}. @internal */
export function accessorAmong(last: RequestVaneAccessor | undefined, owner: object): RequestVaneAccessor | undefined {
  let accessor = last;
  while (accessor !== undefined && accessor.owner !== owner) accessor = accessor.nextOnRequest;
  return accessor;
}

/** The accessor made last for `req` (linked to the others'): the next one made links to it. @internal */
export function lastAccessorOf(req: Request): RequestVaneAccessor | undefined {
  return accessorsByRequest.get(req);
}

/**
 * Keeps `accessor` (made with `lastAccessorOf(req)` as its `nextOnRequest`)
 * as the request's and makes it `req.vane`; once the response is done
 * (`whenResponseEnds`), its snapshot is let go of, and its request (see
 * {@link accessorsByRequest}).
 * @internal
 */
export function keepAccessor(req: Request, res: Response, accessor: RequestVaneAccessor): void {
  accessorsByRequest.set(req, accessor);
  if (!exposeAsVane(req, accessor)) {
    // `req.vane` is the request's own property, which nothing hands the request back through:
    // the accessor keeps its request (such a request lives until a full collection).
    if (accessor.snapshot !== undefined) whenResponseEnds(res, () => accessor.snapshot!.release());
    return;
  }
  // One callback for the request's accessors, registered by its first: it finds the others through the
  // request. (A closure over the request rather than reading `res.req` when called: on a response with a
  // hidden class of its own, that read is a lookup in V8's runtime.)
  if (accessor.nextOnRequest === undefined) whenResponseEnds(res, () => requestDone(req));
}

/** Called when a request's response is done: lets go of its revisions, and of the request. */
function requestDone(req: Request): void {
  for (let a = accessorsByRequest.get(req); a !== undefined; a = a.nextOnRequest) {
    a.snapshot?.release();
    a.letGoOfRequest();
  }
}

/** Node's own request prototypes: `req.vane` is never defined on them (that would reach every server of the process). */
const NODE_REQUEST_PROTOTYPES: ReadonlySet<object> = new Set([IncomingMessage.prototype, Http2ServerRequest.prototype]);

/** The request prototype `req.vane` was last found defined on (a one-entry cache: an app has one). */
let exposedOn: object | undefined;

/**
 * Makes `accessor` what `req.vane` reads. On Express's requests, through a
 * `vane` getter on the framework's request prototype (`express.request`,
 * which every app's `app.request` inherits), defined once: reading it looks
 * the request up in {@link accessorsByRequest}; nothing is added to the
 * request. Assigning `req.vane` still works: it makes an own property of
 * that request, which shadows the getter for the rest of it (the guards
 * keep using the accessor they made). A request whose prototype is Node's
 * own, or that has no framework prototype, gets `req.vane` as an own
 * property, as a plain object would.
 *
 * @returns whether `req.vane` is the getter (false: an own property).
 */
function exposeAsVane(req: Request, accessor: RequestVaneAccessor): boolean {
  const proto = Object.getPrototypeOf(req) as object | null;
  if (proto === exposedOn) return true;
  if (proto !== null && defineVaneGetter(proto)) {
    exposedOn = proto;
    return true;
  }
  req.vane = accessor;
  return false;
}

/**
 * Defines the `vane` getter on the framework prototype in `proto`'s chain
 * (the last one before Node's request prototype), unless another `vane` is
 * there. Returns whether reading `req.vane` on requests of `proto` now calls it.
 */
function defineVaneGetter(proto: object): boolean {
  let base: object | null = null;
  for (let p: object | null = proto; p !== null; p = Object.getPrototypeOf(p) as object | null) {
    if (NODE_REQUEST_PROTOTYPES.has(p)) break;
    base = p;
    if (p === Object.prototype) return false;
  }
  if (base === null || !NODE_REQUEST_PROTOTYPES.has(Object.getPrototypeOf(base) as object)) return false;
  const own = Object.getOwnPropertyDescriptor(base, 'vane');
  if (own !== undefined) return own.get === readVane;
  Object.defineProperty(base, 'vane', { configurable: true, enumerable: false, get: readVane, set: assignVane });
  return true;
}

/**
 * `req.vane` on a framework request: the accessor of the last Vane that
 * touched it (its accessors take the request back if they had let go of it).
 */
function readVane(this: Request): RequestVaneAccessor | undefined {
  const accessor = accessorsByRequest.get(this);
  for (let a = accessor; a !== undefined; a = a.nextOnRequest) a.holdRequest(this);
  return accessor;
}

/** `req.vane = value`: an own property of that request, as on a plain object. */
function assignVane(this: object, value: unknown): void {
  Object.defineProperty(this, 'vane', { value, writable: true, enumerable: true, configurable: true });
}
