/**
 * The client's version, for the `User-Agent` header.
 *
 * @packageDocumentation
 */

/** Version of `@vane/client` (kept in step with package.json by the manifest test). */
export const CLIENT_VERSION = '0.1.0';

/** `User-Agent` sent with every request. */
export const USER_AGENT = `vane-client-node/${CLIENT_VERSION}`;
