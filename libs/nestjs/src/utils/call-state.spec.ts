import { contextOf } from '../../test/support/context.js';
import { CallState, callStateOf, callStateOfRequest, existingCallStateOf } from './call-state.js';

describe("CallState: one state per call, keyed by the call's object", () => {
  it('HTTP: made at the first touch, the same for every later touch of the request, reachable from res.req', () => {
    const req = { headers: {} };
    const ctx = contextOf('http', [req, {}, () => undefined]);
    expect(existingCallStateOf(ctx)).toBeUndefined();
    const state = callStateOf(ctx);
    expect(state).toBeInstanceOf(CallState);
    expect(callStateOf(contextOf('http', [req, {}, () => undefined]))).toBe(state);
    expect(existingCallStateOf(ctx)).toBe(state);
    expect(callStateOfRequest(req)).toBe(state);
    expect(callStateOfRequest(undefined)).toBeUndefined();
    // The request's keys and JSON do not show it.
    expect(Object.keys(req)).toEqual(['headers']);
    expect(JSON.stringify(req)).toBe('{"headers":{}}');
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
