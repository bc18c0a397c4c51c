/** The deepest nesting of arrays and objects accepted in a request body or a seed file. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `value` nests arrays or objects more than `limit` levels deep.
 * Iterative, so a hostile document cannot overflow the stack here, and it
 * stops at the first branch too deep; later recursive checks then run on
 * bounded input.
 */
export function exceedsJsonDepth(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}
