/**
 * Where a request keeps its `req.vane` accessors, and how its response lets
 * go of their revisions.
 *
 * @packageDocumentation
 */
import type { Request, Response } from 'express';
import type { RequestVaneAccessor } from './request-vane.accessor.js';

/**
 * The one property a request's accessors hang from: the accessor of the
 * last `VaneExpress` that touched the request, linked to the others'
 * (`nextOnRequest`; an app usually mounts one).
 *
 * Why one constant symbol rather than a symbol per `VaneExpress`: the code
 * that adds it is shared by every instance, and a store that adds a property
 * under several different keys goes megamorphic, after which V8 adds it in
 * the runtime on every request. Counted under callgrind on the A/B
 * benchmark's app (four instances), that was about 30,000 instructions per
 * request, 3 % of a whole request.
 */
const ACCESSORS = Symbol('vane.express.accessors');

type Carrier = { [ACCESSORS]?: RequestVaneAccessor };

/** The accessor `owner` made for `req`, if it made one. @internal */
export function accessorOf(req: Request, owner: object): RequestVaneAccessor | undefined {
  let accessor = (req as Carrier)[ACCESSORS];
  while (accessor !== undefined && accessor.owner !== owner) accessor = accessor.nextOnRequest;
  return accessor;
}

/** The accessor made last for `req` (linked to the others'): the next one made links to it. @internal */
export function lastAccessorOf(req: Request): RequestVaneAccessor | undefined {
  return (req as Carrier)[ACCESSORS];
}

/**
 * Keeps `accessor` (made with `lastAccessorOf(req)` as its `nextOnRequest`)
 * on `req`; when it holds a snapshot, the response's `close` lets it go.
 * @internal
 */
export function keepAccessor(req: Request, res: Response, accessor: RequestVaneAccessor): void {
  const snapshot = accessor.snapshot;
  (req as Carrier)[ACCESSORS] = accessor;
  if (snapshot === undefined) return;
  if (res.req === req) {
    // One listener per response, shared by every request: it finds the snapshots through `res.req`.
    if (!holdsSnapshot(accessor.nextOnRequest)) res.on('close', releaseRequestSnapshots);
  } else {
    // A response that does not name its request (not Express's own): a listener of its own.
    res.on('close', () => snapshot.release());
  }
}

function holdsSnapshot(accessor: RequestVaneAccessor | undefined): boolean {
  for (; accessor !== undefined; accessor = accessor.nextOnRequest) if (accessor.snapshot !== undefined) return true;
  return false;
}

/** The `close` listener of a pinned response (`this`): lets go of its request's revisions. */
function releaseRequestSnapshots(this: Response): void {
  for (let a = (this.req as Carrier)[ACCESSORS]; a !== undefined; a = a.nextOnRequest) a.snapshot?.release();
}
