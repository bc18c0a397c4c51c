import { checkAgainstOpenApi, OpenApiMismatchError } from './support/openapi-conformance.js';

// The check every e2e answer passes through: it must refuse what the document does not describe, or it proves nothing.
describe('checking answers against the OpenAPI document', () => {
  const json = 'application/json; charset=utf-8';

  it('takes an answer the document describes', () => {
    expect(() =>
      checkAgainstOpenApi({
        method: 'POST',
        path: '/v1/flags/evaluate-ab',
        status: 200,
        contentType: json,
        text: '{"results":{"beta":true}}',
      }),
    ).not.toThrow();
    expect(() =>
      checkAgainstOpenApi({ method: 'GET', path: '/v1/sync', status: 304, contentType: undefined, text: '' }),
    ).not.toThrow();
  });

  it('refuses a body that breaks its schema', () => {
    expect(() =>
      checkAgainstOpenApi({
        method: 'POST',
        path: '/v1/flags/evaluate-ab',
        status: 200,
        contentType: json,
        text: '{"results":{"beta":"yes"}}',
      }),
    ).toThrow(OpenApiMismatchError);
    expect(() =>
      checkAgainstOpenApi({
        method: 'GET',
        path: '/admin/v1/services/shop/keys',
        status: 404,
        contentType: json,
        text: '{"error":"gone","message":"x"}',
      }),
    ).toThrow(/breaks the document's schema/);
  });

  it('refuses a status the operation does not list, and a wrong content type', () => {
    expect(() =>
      checkAgainstOpenApi({ method: 'GET', path: '/v1/sync', status: 201, contentType: json, text: '{}' }),
    ).toThrow(/lists only/);
    expect(() =>
      checkAgainstOpenApi({ method: 'GET', path: '/admin/v1/tenant', status: 200, contentType: 'text/html', text: '' }),
    ).toThrow(/the document says application\/json/);
  });

  it('refuses a success on a route the document does not have, and takes its "no route" refusal', () => {
    expect(() =>
      checkAgainstOpenApi({ method: 'GET', path: '/admin/v1/secret-door', status: 200, contentType: json, text: '{}' }),
    ).toThrow(/has no operation GET \/admin\/v1\/secret-door/);
    expect(() =>
      checkAgainstOpenApi({
        method: 'GET',
        path: '/admin/v1/secret-door',
        status: 404,
        contentType: json,
        text: '{"error":"not_found","message":"no route GET /admin/v1/secret-door"}',
      }),
    ).not.toThrow();
  });

  it("checks the console's proxy of the admin API as the admin API", () => {
    expect(() =>
      checkAgainstOpenApi({
        method: 'GET',
        path: '/console/api/admin/v1/tenant',
        status: 200,
        contentType: json,
        text: '{"tenant":{}}',
      }),
    ).toThrow(OpenApiMismatchError);
  });
});
