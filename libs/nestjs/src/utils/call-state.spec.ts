import { IncomingMessage, ServerResponse } from 'node:http';
import { contextOf } from '../../test/support/context.js';
import { CallState, callStateOf, existingCallStateOf } from './call-state.js';

/** A Node response with `res.locals`, as Express makes one per request. */
function expressResponse(): ServerResponse & { locals: Record<string, unknown> } {
  const res = new ServerResponse(new IncomingMessage(null as never)) as ServerResponse & {
    locals: Record<string, unknown>;
  };
  res.locals = Object.create(null) as Record<string, unknown>;
  return res;
}

describe("CallState: one state per call, keyed by the call's object", () => {
  it('HTTP without res.locals (Fastify): made at the first touch, the same for every later touch of the request', () => {
    const req = { headers: {} };
    const ctx = contextOf('http', [req, {}, () => undefined]);
    expect(existingCallStateOf(ctx)).toBeUndefined();
    const state = callStateOf(ctx);
    expect(state).toBeInstanceOf(CallState);
    expect(callStateOf(contextOf('http', [req, {}, () => undefined]))).toBe(state);
    expect(existingCallStateOf(ctx)).toBe(state);
    // The request's keys and JSON do not show it.
    expect(Object.keys(req)).toEqual(['headers']);
    expect(JSON.stringify(req)).toBe('{"headers":{}}');
  });

  it("HTTP on Express: kept in the response's res.locals, unseen by its keys and JSON, nothing added to the request", () => {
    const req = { headers: {} };
    const res = expressResponse();
    res.locals.title = 'shop';
    const ctx = contextOf('http', [req, res, () => undefined]);
    expect(existingCallStateOf(ctx)).toBeUndefined();
    const state = callStateOf(ctx);
    expect(callStateOf(contextOf('http', [req, res, () => undefined]))).toBe(state);
    expect(existingCallStateOf(ctx)).toBe(state);
    expect(Object.keys(res.locals)).toEqual(['title']);
    expect(JSON.stringify(res.locals)).toBe('{"title":"shop"}');
    expect(Object.getOwnPropertySymbols(req)).toEqual([]);
    // Another response's locals: another call.
    expect(callStateOf(contextOf('http', [req, expressResponse(), () => undefined]))).not.toBe(state);
  });

  it("HTTP on Fastify: a reply's locals (as @fastify/view decorates it) are not used, the WeakMap is", () => {
    const req = { headers: {} };
    const reply = { locals: Object.create(null) as object, raw: expressResponse() };
    const state = callStateOf(contextOf('http', [req, reply, () => undefined]));
    expect(Object.getOwnPropertySymbols(reply.locals)).toEqual([]);
    expect(callStateOf(contextOf('http', [req, { locals: {} }, () => undefined]))).toBe(state);
  });

  it('HTTP on Express, res.locals replaced mid-request (the rule the README asks apps to keep): a later touch starts a new state', () => {
    const req = { headers: {} };
    const res = expressResponse();
    const state = callStateOf(contextOf('http', [req, res, () => undefined]));
    res.locals = { user: 'u-1' };
    const ctx = contextOf('http', [req, res, () => undefined]);
    expect(existingCallStateOf(ctx)).toBeUndefined();
    expect(callStateOf(ctx)).not.toBe(state);
  });

  it('another request gets a state of its own', () => {
    const a = callStateOf(contextOf('http', [{}, {}, () => undefined]));
    const b = callStateOf(contextOf('http', [{}, {}, () => undefined]));
    expect(a).not.toBe(b);
  });

  it("RPC data (the app's payload): invisible to keys, spread and Object.assign", () => {
    const data = { orderId: 1 };
    const state = callStateOf(contextOf('rpc', [data, {}]));
    expect(callStateOf(contextOf('rpc', [data, {}]))).toBe(state);
    expect({ ...data }).toEqual({ orderId: 1 });
    expect(Object.getOwnPropertySymbols({ ...data })).toEqual([]);
    expect(Object.getOwnPropertySymbols(Object.assign({}, data))).toEqual([]);
  });

  it('frozen RPC data gets a state too, still one per call', () => {
    const data = Object.freeze({ orderId: 2 });
    const ctx = contextOf('rpc', [data, {}]);
    expect(existingCallStateOf(ctx)).toBeUndefined();
    const state = callStateOf(ctx);
    expect(callStateOf(contextOf('rpc', [data, {}]))).toBe(state);
    expect(existingCallStateOf(ctx)).toBe(state);
    expect(Object.getOwnPropertySymbols(data)).toEqual([]);
  });

  it('a WebSocket message that is no object: the call is its arguments array, shared by its guards and interceptors', () => {
    const args = [{ id: 'socket' }, 'ping'];
    const ctx = contextOf('ws', args);
    const state = callStateOf(ctx);
    expect(callStateOf(contextOf('ws', args))).toBe(state);
    expect(callStateOf(contextOf('ws', [{ id: 'socket' }, 'ping']))).not.toBe(state);
  });
});
