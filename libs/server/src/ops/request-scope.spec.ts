import type { IncomingMessage } from 'node:http';
import type { LogFields, VaneServerLogger } from '../observability/logger.js';
import { RequestScopes } from './request-scope.js';

/** A logger that keeps what it is given. */
function recordingLogger(): VaneServerLogger & { lines: [string, LogFields | undefined][] } {
  const lines: [string, LogFields | undefined][] = [];
  const keep = (message: string, fields?: LogFields): void => void lines.push([message, fields]);
  return { lines, debug: keep, info: keep, warn: keep, error: keep };
}

describe('RequestScopes.wrap', () => {
  it("adds the request id inside a request and cleans every message of credentials, the server's own included", () => {
    const scopes = new RequestScopes();
    const inner = recordingLogger();
    const logger = scopes.wrap(inner, ['owner-token-5d0c9e']);
    const req = { headers: { 'x-request-id': 'req-7' } } as unknown as IncomingMessage;
    scopes.run(req, () =>
      logger.error('driver: postgres://u:pw@db/vane with svs_shop_live_0123456789', { event: 'x' }),
    );
    logger.warn('owner-token-5d0c9e seen outside a request');
    logger.debug!('Bearer owner-token-5d0c9e');
    expect(inner.lines).toEqual([
      ['driver: postgres://u:***@db/vane with svs_…6789', { request_id: 'req-7', event: 'x' }],
      ['[redacted] seen outside a request', undefined],
      ['Bearer [redacted]', undefined],
    ]);
  });
});
