import { routeOf } from './service-spans.js';

describe('routeOf', () => {
  const at = (path: string, prefix = '/') => routeOf(new URL(`http://shop.localhost:4400${path}`), prefix);

  it.each([
    ['/v1/sync', 'sync', '/v1/sync'],
    ['/v1/stream', 'stream', '/v1/stream'],
    ['/v1/flags/evaluate-ab', 'evaluate-ab', '/v1/flags/evaluate-ab'],
    ['/v1/auth/token-exchange', 'token-exchange', '/v1/auth/token-exchange'],
  ])('%s is %s', (path, operation, template) => {
    expect(at(path)).toEqual({ operation, template, redactedPath: template });
  });

  it('names a secret write by its template and keeps the secret name out of the path', () => {
    expect(at('/v1/secrets/stripe.api_key')).toEqual({
      operation: 'secret-write',
      template: '/v1/secrets/{key}',
      redactedPath: '/v1/secrets/REDACTED',
    });
    expect(at('/v1/secrets/tls.client_pem/versions/3')).toEqual({
      operation: 'secret-write',
      template: '/v1/secrets/{key}/versions/{version}',
      redactedPath: '/v1/secrets/REDACTED/versions/3',
    });
  });

  it("keeps the base URL's path prefix, and tells nothing of a path it does not know", () => {
    expect(at('/vane/v1/sync', '/vane/')).toMatchObject({ template: '/vane/v1/sync' });
    expect(at('/v1/secrets/a/b/c')).toEqual({ operation: 'other', template: '', redactedPath: '' });
  });
});
