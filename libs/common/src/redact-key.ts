/**
 * Redaction of API keys for logs and messages.
 *
 * @packageDocumentation
 */

/**
 * Redacts an API key: `svs_…abcd` (its four-character prefix, an ellipsis
 * and the last four characters). A key shorter than 16 characters shows only
 * its prefix (`svs_…`): four characters of a short key would be too much of
 * it. One cut-off for the client's messages and the local server's logs.
 *
 * @param key - the key, valid or not.
 * @returns the redacted form; never the key itself.
 */
export function redactKey(key: string): string {
  return `${key.slice(0, 4)}…${key.length < 16 ? '' : key.slice(-4)}`;
}
