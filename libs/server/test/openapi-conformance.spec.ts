import {
  checkAgainstOpenApi,
  checkStreamEvent,
  OpenApiMismatchError,
  type ReceivedAnswer,
} from './support/openapi-conformance.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON answer of `method path`. */
function answer(method: string, path: string, status: number, text: string, contentType = JSON_TYPE): ReceivedAnswer {
  return { method, path, status, contentType, text };
}

// The check every e2e answer passes through: it must refuse what the document does not describe, or it proves nothing.
describe('checking answers against the OpenAPI document', () => {
  it('takes an answer the document describes', () => {
    expect(() =>
      checkAgainstOpenApi(answer('POST', '/v1/flags/evaluate-ab', 200, '{"results":{"beta":true}}')),
    ).not.toThrow();
    expect(() => checkAgainstOpenApi(answer('GET', '/v1/sync', 304, '', undefined))).not.toThrow();
  });

  it('refuses a body that breaks its schema', () => {
    expect(() =>
      checkAgainstOpenApi(answer('POST', '/v1/flags/evaluate-ab', 200, '{"results":{"beta":"yes"}}')),
    ).toThrow(OpenApiMismatchError);
    expect(() =>
      checkAgainstOpenApi(answer('GET', '/admin/v1/services/shop/keys', 404, '{"error":"gone","message":"x"}')),
    ).toThrow(/breaks the document's schema/);
  });

  it('refuses a status the operation does not list, and a wrong content type', () => {
    expect(() => checkAgainstOpenApi(answer('GET', '/v1/sync', 201, '{}'))).toThrow(/lists only/);
    expect(() => checkAgainstOpenApi(answer('GET', '/admin/v1/tenant', 200, '', 'text/html'))).toThrow(
      /the document says application\/json/,
    );
  });

  it('refuses a success on a route the document does not have, and takes its "no route" refusal', () => {
    expect(() => checkAgainstOpenApi(answer('GET', '/admin/v1/secret-door', 200, '{}'))).toThrow(
      /has no operation GET \/admin\/v1\/secret-door/,
    );
    const noRoute = '{"error":"not_found","message":"no route GET /admin/v1/secret-door"}';
    expect(() => checkAgainstOpenApi(answer('GET', '/admin/v1/secret-door', 404, noRoute))).not.toThrow();
  });

  it("checks the console's proxy of the admin API as the admin API", () => {
    expect(() => checkAgainstOpenApi(answer('GET', '/console/api/admin/v1/tenant', 200, '{"tenant":{}}'))).toThrow(
      OpenApiMismatchError,
    );
  });

  it('checks the events of /v1/stream by their name', () => {
    expect(() => checkStreamEvent('resync', '{"revision":3}')).not.toThrow();
    expect(() => checkStreamEvent('goaway', '{"reconnect_in_ms":2500}')).not.toThrow();
    expect(() => checkStreamEvent('goaway', '{"reconnect_in_ms":90000}')).toThrow(/breaks the document's schema/);
    expect(() => checkStreamEvent('patch', '{"revision":4}')).toThrow(/breaks the document's schema/);
    expect(() => checkStreamEvent('welcome', '{}')).toThrow(/an event "welcome" the document does not have/);
  });
});
