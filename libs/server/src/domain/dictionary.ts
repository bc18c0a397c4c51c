/**
 * An empty object without a prototype, for members named by users (config,
 * flag and secret keys, header names, attributes): a key such as
 * `__proto__` or `constructor` is then an ordinary member, not the
 * prototype setter or an inherited method. `JSON.stringify` writes it like
 * any object.
 */
export function dictionary<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
