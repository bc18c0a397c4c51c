/**
 * `createVane()`: the entry point.
 *
 * @packageDocumentation
 */
import { VaneClient } from '@vane/client';
import { consoleLogger, initialSyncFailureLine } from '@vane/client/adapter';
import { InvalidArgumentError } from '@vane/client/errors';
import { checkFlagOffOptions } from './require-flag.js';
import { VaneExpress } from './vane-express.js';
import type { VaneExpressOptions } from './vane-express.options.js';

/**
 * Creates the client and runs its blocking initial sync, then resolves
 * with a {@link VaneExpress} whose cache is full. Rejects with the client's
 * typed error, and leaves nothing open: `UnauthorizedError` (401, wrong
 * key), `VaneNotFoundError` (404, wrong slug), `BillingOverdueError` (402),
 * `RateLimitedError`/`QuarantinedError` (429), `TransportError` (the service
 * cannot be reached), `UnexpectedResponseError`, or `InvalidArgumentError`
 * (a bad option, before any request). Match on `err.code`.
 *
 * @example
 * ```ts
 * const vane = await createVane({
 *   baseUrl: process.env.VANE_BASE_URL!,
 *   apiKey: process.env.VANE_API_KEY!,
 *   abContext: (req) => ({ userId: req.get('x-user-id') ?? 'anonymous' }),
 * });
 * ```
 */
export async function createVane(options: VaneExpressOptions): Promise<VaneExpress> {
  if (typeof options !== 'object' || options === null)
    throw new InvalidArgumentError('createVane: options must be an object');
  const { abContext, flagOff, consistentReads, ...clientOptions } = options;
  if (consistentReads !== undefined && typeof consistentReads !== 'boolean')
    throw new InvalidArgumentError('consistentReads must be a boolean');
  if (abContext !== undefined && typeof abContext !== 'function')
    throw new InvalidArgumentError('abContext must be a function of the request');
  checkFlagOffOptions(flagOff);
  let client: VaneClient;
  try {
    client = await VaneClient.create(clientOptions);
  } catch (err) {
    // The line every adapter prints: what failed and what to do about it.
    (options.logger ?? consoleLogger).error(initialSyncFailureLine(err));
    throw err;
  }
  return new VaneExpress({
    client,
    abContext,
    flagOff,
    logger: options.logger,
    consistentReads: consistentReads ?? true,
  });
}
