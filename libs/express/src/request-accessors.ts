/**
 * Where a request keeps its `req.vane` accessors, and how its response lets
 * go of their revisions.
 *
 * @packageDocumentation
 */
import { IncomingMessage } from 'node:http';
import { Http2ServerRequest } from 'node:http2';
import type { VaneLogger } from '@vane/client';
import { whenResponseEnds } from '@vane/client/adapter';
import type { Request, Response } from 'express';
import type { RequestVaneAccessor } from './request-vane.accessor.js';

/**
 * Where a request's accessors live on Express: its response's `res.locals`
 * (Express makes one per request, with no prototype), under a symbol, the
 * last `VaneExpress` to touch the request first, linked to the others'
 * (`nextOnRequest`; an app usually mounts one). A symbol-keyed entry is not
 * among `Object.keys(res.locals)`, so templates and code that list the
 * locals never see it; `Object.assign` and spreads copy it.
 *
 * Why there: Express swaps every request's prototype, so a property added
 * to a request is a slow-path write, and a `WeakMap` entry keyed by a young
 * request is work at every young-generation collection; an insert into
 * `res.locals` is neither, and dies with its request (docs/benchmarks.md,
 * "Guarded routes").
 *
 * The rule this asks of an app: add to `res.locals`, do not replace it
 * (`res.locals = {…}`) mid-request. A replaced `res.locals` has lost the
 * entry: `req.vane` is then `undefined`, and a later guard starts the
 * request over (a new revision pinned, a new A/B memo). When the response is
 * done, the entry is put back into the new object, for code that still runs
 * for the request, and a warning says what happened (once per logger).
 */
const ACCESSORS: unique symbol = Symbol('vane.accessors');

/** What Vane keeps in `res.locals`. */
interface VaneLocals {
  [ACCESSORS]?: RequestVaneAccessor;
}

/** The response's `res.locals`, or `undefined` (not Express: see {@link accessorsByRequest}). */
function localsOf(res: Response | undefined): VaneLocals | undefined {
  const locals = res?.locals as unknown;
  return typeof locals === 'object' && locals !== null ? (locals as VaneLocals) : undefined;
}

/**
 * Where the accessors of a request whose response has no `res.locals` (not
 * Express: a bare Node server, a test double) live, keyed by the request.
 * V8's young-generation collector treats a `WeakMap`'s values as strong, so
 * an accessor that refers to its request would keep every finished request
 * alive until a full collection: such an
 * accessor lets go of its request once the response is done
 * (`letGoOfRequest`), and `req.vane` hands it back if code still running
 * for the request reads it later.
 */
const accessorsByRequest = new WeakMap<Request, RequestVaneAccessor>();

/** Loggers the warning about a replaced `res.locals` went to (once each: once per Vane, usually once per process). */
const warnedOfReplacedLocals = new WeakSet<VaneLogger>();

/** The accessor `owner` made for a request, if any, found from `last`, the request's {@link lastAccessorOf}. @internal */
export function accessorAmong(last: RequestVaneAccessor | undefined, owner: object): RequestVaneAccessor | undefined {
  let accessor = last;
  while (accessor !== undefined && accessor.owner !== owner) accessor = accessor.nextOnRequest;
  return accessor;
}

/**
 * The accessor made last for `req` (linked to the others'): the next one made links to it.
 * @param res - the request's response (Express's `req.res` when not given).
 * @internal
 */
export function lastAccessorOf(req: Request, res: Response | undefined = req.res): RequestVaneAccessor | undefined {
  const locals = localsOf(res);
  return locals !== undefined ? locals[ACCESSORS] : accessorsByRequest.get(req);
}

/**
 * Keeps `accessor` (made with `lastAccessorOf(req, res)` as its
 * `nextOnRequest`) as the request's and makes it `req.vane`; once the
 * response is done (`whenResponseEnds`), its view is let go of.
 * @param logger - where a replaced `res.locals` is reported.
 * @internal
 */
export function keepAccessor(req: Request, res: Response, accessor: RequestVaneAccessor, logger: VaneLogger): void {
  const locals = localsOf(res);
  if (locals === undefined) return keepByRequest(req, res, accessor);
  locals[ACCESSORS] = accessor;
  exposeAsVane(req, accessor);
  // Nothing to let go of without a view (live reads); with one, the callback also finds a replaced res.locals.
  if (accessor.view !== undefined) whenResponseEnds(res, () => responseDone(res, accessor, logger));
}

/** Called when the response is done: lets go of the accessor's revision, and puts it back into a replaced `res.locals`. */
function responseDone(res: Response, accessor: RequestVaneAccessor, logger: VaneLogger): void {
  accessor.view!.release();
  const locals = localsOf(res);
  if (locals === undefined || accessorAmong(locals[ACCESSORS], accessor.owner) === accessor) return;
  if (locals[ACCESSORS] === undefined) locals[ACCESSORS] = accessor;
  if (warnedOfReplacedLocals.has(logger)) return;
  warnedOfReplacedLocals.add(logger);
  logger.warn(
    'res.locals was replaced during a request after Vane had seen the request: from then on req.vane read undefined, and a later Vane guard started the request over (a new revision pinned, a new A/B memo). Add to res.locals (res.locals.name = value) instead of replacing it.',
  );
}

/** {@link keepAccessor} for a request without `res.locals`: see {@link accessorsByRequest}. */
function keepByRequest(req: Request, res: Response, accessor: RequestVaneAccessor): void {
  accessorsByRequest.set(req, accessor);
  if (!exposeAsVane(req, accessor)) {
    // `req.vane` is the request's own property, which nothing hands the request back through:
    // the accessor keeps its request (such a request lives until a full collection).
    if (accessor.view !== undefined) whenResponseEnds(res, () => accessor.view!.release());
    return;
  }
  // One callback for the request's accessors, registered by its first: it finds the others through the request.
  if (accessor.nextOnRequest === undefined) whenResponseEnds(res, () => requestDone(req));
}

/** Called when a request's response is done: lets go of its revisions, and of the request. */
function requestDone(req: Request): void {
  for (let a = accessorsByRequest.get(req); a !== undefined; a = a.nextOnRequest) {
    a.view?.release();
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
 * which every app's `app.request` inherits), defined once: reading it finds
 * the accessor in `res.locals` (see {@link ACCESSORS}); nothing is added to
 * the request. Assigning `req.vane` still works: it makes an own property of
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
 * touched it (accessors kept by request take it back if they had let go of it).
 */
function readVane(this: Request): RequestVaneAccessor | undefined {
  const accessor = lastAccessorOf(this);
  for (let a = accessor; a !== undefined; a = a.nextOnRequest) a.holdRequest(this);
  return accessor;
}

/** `req.vane = value`: an own property of that request, as on a plain object. */
function assignVane(this: object, value: unknown): void {
  Object.defineProperty(this, 'vane', { value, writable: true, enumerable: true, configurable: true });
}
