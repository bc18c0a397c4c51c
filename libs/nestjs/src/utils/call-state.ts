import { ServerResponse } from 'node:http';
import type { ExecutionContext } from '@nestjs/common';
import type { VaneView } from '@vane/client';
import type { RequestAbEvaluation } from '@vane/client/adapter';
import { callKeyOf, HTTP_RESPONSE } from '../request-context.js';

/**
 * Everything `@vane/nestjs` keeps for one call (an HTTP request, a GraphQL
 * operation, an RPC or WebSocket message): made at the call's first Vane
 * touch, every field present from the start so that every call's state
 * has the same shape.
 * @internal
 */
export class CallState {
  /** The revision the call reads, once taken (see `VaneRequestPins`). */
  view: VaneView | undefined = undefined;
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
 * Where the state of an HTTP call on Nest's Express platform lives: its
 * response's `res.locals` (Express makes one per request, with no
 * prototype), under a symbol, so neither templates nor code that lists the
 * locals see it.
 *
 * Why there, as in `@vane/express`: Express swaps every request's
 * prototype, so a property added to a request is a slow-path write, and a
 * `WeakMap` entry keyed by a young request is work at every scavenge; an
 * insert into `res.locals` is neither (docs/benchmarks.md, "Guarded routes").
 */
const IN_LOCALS: unique symbol = Symbol('vane.callState');

/** What `@vane/nestjs` keeps in `res.locals`. */
interface StateLocals {
  [IN_LOCALS]?: CallState;
}

/**
 * The state of every other call (Fastify, GraphQL, RPC, WebSocket), and of
 * an HTTP call whose response has no `res.locals`, keyed by the call's own
 * object. A `WeakMap` also leaves the app's own payloads (RPC data,
 * WebSocket messages) untouched, frozen or not.
 *
 * The rule that keeps it cheap: a state must never refer to its call's
 * object, not even through the execution context (whose arguments are that
 * object). V8's young-generation collector treats a WeakMap's values as
 * strong, so a value that reaches its own key keeps the key alive through
 * every scavenge, until a full collection: every request would be promoted.
 * Hence the A/B memo is made without a context (each question hands its own).
 */
const callStates = new WeakMap<object, CallState>();

/**
 * The `res.locals` of an Express response (a Node `ServerResponse`, which
 * Fastify's reply is not, whatever a plugin decorates it with), or `undefined`.
 */
function localsOf(response: unknown): StateLocals | undefined {
  if (!(response instanceof ServerResponse)) return undefined;
  const locals = (response as { locals?: unknown }).locals;
  return typeof locals === 'object' && locals !== null ? (locals as StateLocals) : undefined;
}

/** The `res.locals` a call's state lives in: an HTTP call's on Express, else `undefined`. */
function callLocalsOf(context: ExecutionContext): StateLocals | undefined {
  return context.getType<string>() === 'http' ? localsOf(context.getArgByIndex(HTTP_RESPONSE)) : undefined;
}

/** The object that stands for the call of `context` (see `callKeyOf`); its arguments array if none does. */
function callObjectOf(context: ExecutionContext): object {
  // Guards, interceptors and pipes of one RPC or WebSocket call share its arguments array.
  return callKeyOf(context) ?? context.getArgs();
}

/** The state kept for the call of `context`, or `undefined` when Vane has not touched the call yet. @internal */
export function existingCallStateOf(context: ExecutionContext): CallState | undefined {
  const locals = callLocalsOf(context);
  return locals !== undefined ? locals[IN_LOCALS] : callStates.get(callObjectOf(context));
}

/** The state kept for the call of `context`, made on its first Vane touch. @internal */
export function callStateOf(context: ExecutionContext): CallState {
  const locals = callLocalsOf(context);
  if (locals !== undefined) return (locals[IN_LOCALS] ??= new CallState());
  const call = callObjectOf(context);
  let state = callStates.get(call);
  if (state === undefined) callStates.set(call, (state = new CallState()));
  return state;
}
