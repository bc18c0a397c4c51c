import { contextOf } from '../test/support/context.js';
import { callKeyOf, requestOf, transportOf, userOf } from './request-context.js';

describe('requestOf / userOf / callKeyOf: one place for every transport', () => {
  const user = { id: 'u-1' };

  it('HTTP (Express or Fastify): the request, its user, the request as the call key', () => {
    const req = { user, headers: {} };
    const ctx = contextOf('http', [req, {}, () => undefined]);
    expect(transportOf(ctx)).toBe('http');
    expect(requestOf(ctx)).toBe(req);
    expect(userOf(ctx)).toBe(user);
    expect(callKeyOf(ctx)).toBe(req);
  });

  it('GraphQL: the HTTP request of the GraphQL context, else the context; one call key per operation', () => {
    const req = { user };
    const gql = { req };
    const ctx = contextOf('graphql', [undefined, {}, gql, {}]);
    expect(requestOf(ctx)).toBe(req);
    expect(userOf(ctx)).toBe(user);
    expect(callKeyOf(ctx)).toBe(gql);
    const bare = { user };
    expect(requestOf(contextOf('graphql', [undefined, {}, bare, {}]))).toBe(bare);
    expect(userOf(contextOf('graphql', [undefined, {}, { req: {}, user }, {}]))).toBe(user);
  });

  it('RPC: the message data and its user; the transport context as the key when the data is no object', () => {
    const data = { user, orderId: 1 };
    const tcp = { pattern: 'x' };
    const ctx = contextOf('rpc', [data, tcp]);
    expect(requestOf(ctx)).toBe(data);
    expect(userOf(ctx)).toBe(user);
    expect(callKeyOf(ctx)).toBe(data);
    expect(callKeyOf(contextOf('rpc', ['text', tcp]))).toBe(tcp);
    expect(userOf(contextOf('rpc', ['text', tcp]))).toBeUndefined();
  });

  it('WebSocket: the client and its user (or socket.io client.data.user), never the message; the data as key', () => {
    const client = { user };
    const data = { user: { id: 'forged' } };
    const ctx = contextOf('ws', [client, data, 'pattern']);
    expect(requestOf(ctx)).toBe(client);
    expect(userOf(ctx)).toBe(user);
    expect(callKeyOf(ctx)).toBe(data);
    expect(userOf(contextOf('ws', [{ data: { user } }, 'x', 'pattern']))).toBe(user);
    expect(userOf(contextOf('ws', [{}, data, 'pattern']))).toBeUndefined();
    // A client outlives its messages: a message whose data is no object has no key of its own.
    expect(callKeyOf(contextOf('ws', [client, 'text', 'pattern']))).toBeUndefined();
  });

  it('an unknown transport has no request', () => {
    const ctx = contextOf('kafka-custom', [{ user }]);
    expect(requestOf(ctx)).toBeUndefined();
    expect(userOf(ctx)).toBeUndefined();
    expect(callKeyOf(ctx)).toBeUndefined();
  });
});
