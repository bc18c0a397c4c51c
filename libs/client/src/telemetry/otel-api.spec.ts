import * as realApi from '@opentelemetry/api';
import { loadOtelApi, SPAN_KIND_CLIENT, SPAN_KIND_INTERNAL, SPAN_STATUS_ERROR, type OtelApi } from './otel-api.js';

describe('loadOtelApi', () => {
  it('loads the real package, which satisfies the types the client writes for it', async () => {
    // A compile-time check as much as a run-time one: the real API must be assignable to OtelApi.
    const typed: OtelApi = realApi;
    const loaded = await loadOtelApi();
    expect(loaded.api?.metrics).toBe(typed.metrics);
    expect(SPAN_KIND_CLIENT).toBe(realApi.SpanKind.CLIENT);
    expect(SPAN_KIND_INTERNAL).toBe(realApi.SpanKind.INTERNAL);
    expect(SPAN_STATUS_ERROR).toBe(realApi.SpanStatusCode.ERROR);
  });

  it('reads a CommonJS interop namespace (exports under default)', async () => {
    const loaded = await loadOtelApi(() => Promise.resolve({ default: realApi }));
    expect(loaded.api?.trace).toBe(realApi.trace);
  });

  it.each(['MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND'])(
    'a missing package (%s) is no telemetry, never an error',
    async (code) => {
      const missing = Object.assign(new Error("Cannot find module '@opentelemetry/api'\nRequire stack: …"), { code });
      await expect(loadOtelApi(() => Promise.reject(missing))).resolves.toEqual({
        api: undefined,
        reason: 'not-installed',
      });
    },
  );

  it('a package that fails to load, or is not the API, says so in one line', async () => {
    await expect(loadOtelApi(() => Promise.reject(new Error('SyntaxError: boom\n  at …')))).resolves.toEqual({
      api: undefined,
      reason: 'not-loadable',
      detail: 'SyntaxError: boom',
    });
    await expect(loadOtelApi(() => Promise.resolve({ something: 1 }))).resolves.toMatchObject({
      api: undefined,
      reason: 'not-loadable',
    });
  });
});
