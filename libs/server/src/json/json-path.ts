/**
 * JSON paths as error messages show them: `services.shop.configs["a.b"]`.
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Formats path segments the way JavaScript would address them: identifiers
 * join with dots, any other string becomes a JSON-escaped bracket member and a
 * number an index.
 *
 * @example
 * formatJsonPath(['services', 'shop', 'configs', 'a.b']); // 'services.shop.configs["a.b"]'
 * formatJsonPath(['services', 'shop', 'keys', 1]);        // 'services.shop.keys[1]'
 */
export function formatJsonPath(segments: ReadonlyArray<string | number>): string {
  let path = '';
  for (const segment of segments) {
    path = appendJsonPath(path, segment);
  }
  return path;
}

/**
 * Appends one segment to a path already formatted by {@link formatJsonPath};
 * `appendJsonPath('', 'tenant')` is `'tenant'`.
 */
export function appendJsonPath(path: string, segment: string | number): string {
  if (typeof segment === 'number') {
    return `${path}[${segment}]`;
  }
  if (IDENTIFIER.test(segment)) {
    return path === '' ? segment : `${path}.${segment}`;
  }
  return `${path}[${JSON.stringify(segment)}]`;
}
