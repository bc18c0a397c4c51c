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
 * The key under which a request keeps its accessor of the last `VaneExpress`
 * that touched it, linked to the others' (`nextOnRequest`; an app usually
 * mounts one).
 *
 * Why a property of the request and not a WeakMap keyed by it: an accessor
 * refers to its request (its A/B memo asks `abContext(req)`), and V8's
 * young-generation collector treats a WeakMap's values as strong. A value
 * that refers to its key keeps the key alive through every scavenge, so
 * every request (with its socket buffers, headers and response) survived
 * into the old generation and waited for a full collection. Measured on the
 * benchmark's Express 5 app with garbage collection on the main thread
 * (`--single-threaded-gc`, callgrind, 10 connections): such a WeakMap entry
 * cost 6.5 % of a request, a property on the request nothing measurable; timed,
 * the WeakMap doubled the CPU time of V8's collector threads. A property
 * added to an Express request is not free either (Express swaps each
 * request's prototype, so V8 builds each request's hidden class in its
 * runtime): one property, and only one, is added.
 */
const ACCESSORS: unique symbol = Symbol('vane.accessors');

/** A request as this file sees it: maybe holding accessors under {@link ACCESSORS}. */
interface HoldsAccessors {
  [ACCESSORS]?: RequestVaneAccessor;
}

/** The accessor `owner` made for `req`, if it made one. @internal */
export function accessorOf(req: Request, owner: object): RequestVaneAccessor | undefined {
  let accessor = (req as HoldsAccessors)[ACCESSORS];
  while (accessor !== undefined && accessor.owner !== owner) accessor = accessor.nextOnRequest;
  return accessor;
}

/** The accessor made last for `req` (linked to the others'): the next one made links to it. @internal */
export function lastAccessorOf(req: Request): RequestVaneAccessor | undefined {
  return (req as HoldsAccessors)[ACCESSORS];
}

/**
 * Keeps `accessor` (made with `lastAccessorOf(req)` as its `nextOnRequest`)
 * as the request's, makes it `req.vane`, and, when it holds a snapshot, lets
 * it go once the response is done (`whenResponseEnds`).
 * @internal
 */
export function keepAccessor(req: Request, res: Response, accessor: RequestVaneAccessor): void {
  const snapshot = accessor.snapshot;
  (req as HoldsAccessors)[ACCESSORS] = accessor;
  exposeAsVane(req, accessor);
  if (snapshot === undefined) return;
  if (res.req === req) {
    // One callback for every response: it finds the snapshots through `res.req`.
    if (!holdsSnapshot(accessor.nextOnRequest)) whenResponseEnds(res, releaseRequestSnapshots);
  } else {
    // A response that does not name its request (not Express's own): a callback of its own.
    whenResponseEnds(res, () => snapshot.release());
  }
}

function holdsSnapshot(accessor: RequestVaneAccessor | undefined): boolean {
  for (; accessor !== undefined; accessor = accessor.nextOnRequest) if (accessor.snapshot !== undefined) return true;
  return false;
}

/** Called when a pinned response ended: lets go of its request's revisions. */
function releaseRequestSnapshots(res: Response): void {
  for (let a = (res.req as HoldsAccessors)[ACCESSORS]; a !== undefined; a = a.nextOnRequest) a.snapshot?.release();
}

/** Node's own request prototypes: `req.vane` is never defined on them (that would reach every server of the process). */
const NODE_REQUEST_PROTOTYPES: ReadonlySet<object> = new Set([IncomingMessage.prototype, Http2ServerRequest.prototype]);

/** The request prototype `req.vane` was last found defined on (a one-entry cache: an app has one). */
let exposedOn: object | undefined;

/**
 * Makes `accessor` what `req.vane` reads. On Express's requests, through a
 * `vane` getter on the framework's request prototype (`express.request`,
 * which every app's `app.request` inherits), defined once: reading it reads
 * the request's {@link ACCESSORS}, the one property Vane adds to a request.
 * Assigning `req.vane` still works: it makes an own property of that request,
 * which shadows the getter for the rest of it (the guards keep using the
 * accessor they made). Nothing is looked up on the request itself here: on
 * Express every such lookup is a runtime one (see {@link ACCESSORS}). A
 * request whose prototype is Node's own, or that has no framework
 * prototype, gets `req.vane` as an own property, as a plain object would.
 */
function exposeAsVane(req: Request, accessor: RequestVaneAccessor): void {
  const proto = Object.getPrototypeOf(req) as object | null;
  if (proto === exposedOn) return;
  if (proto !== null && defineVaneGetter(proto)) {
    exposedOn = proto;
    return;
  }
  req.vane = accessor;
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

/** `req.vane` on a framework request: the accessor of the last Vane that touched it. */
function readVane(this: HoldsAccessors): RequestVaneAccessor | undefined {
  return this[ACCESSORS];
}

/** `req.vane = value`: an own property of that request, as on a plain object. */
function assignVane(this: object, value: unknown): void {
  Object.defineProperty(this, 'vane', { value, writable: true, enumerable: true, configurable: true });
}
