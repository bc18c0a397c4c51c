/**
 * The options of what a guard does when its flag is off, checked when the
 * guard is made: the same rule in every adapter.
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from '../errors.js';

/**
 * Validates flag-off options (`status`, `error`, `handler`), whatever the
 * adapter's types of `error` and `handler`.
 *
 * @param options - the options, or undefined for none.
 * @param where - what gives them, for the error message.
 * @throws InvalidArgumentError - for options that are not an object, a status that is not 100–599,
 *   or an `error`/`handler` that is not a function.
 */
export function checkFlagOffOptions(options: unknown, where: string): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null)
    throw new InvalidArgumentError(`${where}: options must be an object`);
  const { status, error, handler } = options as { status?: unknown; error?: unknown; handler?: unknown };
  if (status !== undefined && (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 599))
    throw new InvalidArgumentError(`${where}: status must be an HTTP status code (an integer from 100 to 599)`);
  if (error !== undefined && typeof error !== 'function')
    throw new InvalidArgumentError(`${where}: error must be a function that returns an Error`);
  if (handler !== undefined && typeof handler !== 'function')
    throw new InvalidArgumentError(`${where}: handler must be a function`);
}
