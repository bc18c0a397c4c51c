import type { ExecutionContext } from '@nestjs/common';
import type { RequestAbEvaluation, VaneSnapshot } from '@vane/client';
import { callKeyOf } from '../request-context.js';

/** The revision one call reads (see `VaneRequestPins`). @internal */
export interface CallPin {
  readonly snapshot: VaneSnapshot;
  /** False when the call's HTTP response ends it; true when its handler does (no response). */
  readonly endsWithHandler: boolean;
  /** Handlers of the call running now (its interceptor subscriptions). */
  running: number;
}

/**
 * Everything `@vane/nestjs` keeps for one call (an HTTP request, a GraphQL
 * operation, an RPC or WebSocket message): made at the call's first Vane
 * touch, every field present from the start so that every call's state
 * has the same shape.
 * @internal
 */
export class CallState {
  /** The revision the call reads, once taken. */
  pin: CallPin | undefined = undefined;
  /** The call's A/B batch, once asked. */
  abEvaluation: RequestAbEvaluation<ExecutionContext> | undefined = undefined;
  /** The handler a `FeatureFlagGuard` subclass let the call through to. */
  passedTo: Function | undefined = undefined;
}

/**
 * The one property every call's state lives under, on the call's own object.
 *
 * Why one property under one constant symbol, not a WeakMap or a symbol per
 * concern: measured on the pinning benchmark (instruction counts under
 * callgrind), a WeakMap entry per request costs an ephemeron the collector
 * traces and several hundred nanoseconds to set, and lookups of a property a
 * request does not have yet, under several different keys, go megamorphic
 * and walk the request's whole prototype chain (Express's request, then
 * Node's `IncomingMessage`, `Readable`, …) on every request. One constant key
 * keeps each access site monomorphic and each request one transition away
 * from the last one's shape.
 */
const CALL_STATE = Symbol('vane.nest.call');

type Carrier = { [CALL_STATE]?: CallState };

/** For call objects that cannot take a property (frozen or sealed RPC data). */
const sealedCalls = new WeakMap<object, CallState>();

/** The object that stands for the call of `context` (see `callKeyOf`); its arguments array if none does. */
function callObjectOf(context: ExecutionContext): object {
  // Guards, interceptors and pipes of one RPC or WebSocket call share its arguments array.
  return callKeyOf(context) ?? context.getArgs();
}

/** The state kept for the call of `context`, or `undefined` when Vane has not touched the call yet. @internal */
export function existingCallStateOf(context: ExecutionContext): CallState | undefined {
  const call = callObjectOf(context);
  return (call as Carrier)[CALL_STATE] ?? (Object.isExtensible(call) ? undefined : sealedCalls.get(call));
}

/** The state kept for the call of `context`, made on its first Vane touch. @internal */
export function callStateOf(context: ExecutionContext): CallState {
  const call = callObjectOf(context);
  const own = (call as Carrier)[CALL_STATE];
  if (own !== undefined) return own;
  if (!Object.isExtensible(call)) {
    let sealed = sealedCalls.get(call);
    if (sealed === undefined) sealedCalls.set(call, (sealed = new CallState()));
    return sealed;
  }
  const state = new CallState();
  if (context.getType<string>() === 'http') {
    // A platform request: a plain store (a symbol never shows in its keys or its JSON).
    (call as Carrier)[CALL_STATE] = state;
  } else {
    // The app's own payload (RPC data, a WebSocket message): invisible to a spread or `Object.assign` too.
    Object.defineProperty(call, CALL_STATE, { value: state, writable: false, configurable: true, enumerable: false });
  }
  return state;
}

/** The state of the call whose object is `request` (an Express response's `res.req`), if Vane touched it. @internal */
export function callStateOfRequest(request: unknown): CallState | undefined {
  return typeof request === 'object' && request !== null ? (request as Carrier)[CALL_STATE] : undefined;
}
