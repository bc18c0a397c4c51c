/**
 * Depth of JSON values, measured without recursion.
 *
 * @packageDocumentation
 */

/**
 * Whether `value` nests arrays or objects more than `limit` levels deep
 * (a scalar is depth 0, `[]` depth 1). Iterative, so a hostile document
 * cannot overflow the stack here, and it stops at the first branch too deep;
 * recursive work (`JSON.stringify`, `jsonEqual`) is then safe on what
 * passed.
 *
 * @param limit - the deepest nesting accepted.
 */
export function exceedsJsonDepth(value: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current as object)) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}
