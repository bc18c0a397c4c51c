import type { ExecutionContext } from '@nestjs/common';
import type { RequestAbEvaluation, VaneSnapshot } from '@vane/client';
import { callKeyOf } from '../request-context.js';

/**
 * Everything `@vane/nestjs` keeps for one call (an HTTP request, a GraphQL
 * operation, an RPC or WebSocket message): made at the call's first Vane
 * touch, every field present from the start so that every call's state
 * has the same shape.
 * @internal
 */
export class CallState {
  /** The revision the call reads, once taken (see `VaneRequestPins`). */
  snapshot: VaneSnapshot | undefined = undefined;
  /** False when the call's HTTP response ends its pin; true when its handler does (no response). */
  endsWithHandler = false;
  /** Handlers of the call running now (its interceptor subscriptions). */
  running = 0;
  /** The call's A/B batch, once asked. */
  abEvaluation: RequestAbEvaluation<ExecutionContext> | undefined = undefined;
  /** The handler a `FeatureFlagGuard` subclass let the call through to. */
  passedTo: Function | undefined = undefined;
}

/**
 * Every call's state, keyed by the call's own object.
 *
 * Why a WeakMap and not a property of the call's object: on Nest's Express
 * platform, Express swaps every request's prototype
 * (`Object.setPrototypeOf(req, app.request)`), after which V8 gives each
 * request a map of its own, so a property added to a request builds a new
 * map in the runtime on every request. Counted under callgrind (main thread,
 * Express 5, one connection), one added property and its read cost about
 * 23,000 instructions per request, 3.5 % of a whole request; a WeakMap entry
 * is within the noise of nothing. A WeakMap also leaves the app's own
 * payloads (RPC data, WebSocket messages) untouched, frozen or not.
 *
 * The rule that makes it cheap: a state must never refer to its call's
 * object, not even through the execution context (whose arguments are that
 * object). V8's young-generation collector treats a WeakMap's values as
 * strong, so a value that reaches its own key keeps the key alive through
 * every scavenge, until a full collection: every request would be promoted.
 * Hence the A/B memo is made without a context (each question hands its own).
 */
const callStates = new WeakMap<object, CallState>();

/** The object that stands for the call of `context` (see `callKeyOf`); its arguments array if none does. */
function callObjectOf(context: ExecutionContext): object {
  // Guards, interceptors and pipes of one RPC or WebSocket call share its arguments array.
  return callKeyOf(context) ?? context.getArgs();
}

/** The state kept for the call of `context`, or `undefined` when Vane has not touched the call yet. @internal */
export function existingCallStateOf(context: ExecutionContext): CallState | undefined {
  return callStates.get(callObjectOf(context));
}

/** The state kept for the call of `context`, made on its first Vane touch. @internal */
export function callStateOf(context: ExecutionContext): CallState {
  const call = callObjectOf(context);
  let state = callStates.get(call);
  if (state === undefined) callStates.set(call, (state = new CallState()));
  return state;
}

/** The state of the call whose object is `request` (an Express response's `res.req`), if Vane touched it. @internal */
export function callStateOfRequest(request: unknown): CallState | undefined {
  return typeof request === 'object' && request !== null ? callStates.get(request) : undefined;
}
