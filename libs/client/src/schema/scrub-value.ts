/**
 * Removing a rejected value from a validator's message.
 *
 * @packageDocumentation
 */

const PLACEHOLDER = '[rejected value]';
/** Leaves looked at in one value: enough for any config, bounded for a hostile one. */
const MAX_LEAVES = 1000;
/** Shorter strings are removed only where quoted: unquoted, they would eat ordinary words of the message. */
const MIN_BARE_LENGTH = 3;

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Strings and numbers inside `value`, iteratively, at most {@link MAX_LEAVES}. */
function leavesOf(value: unknown): Array<string | number> {
  const leaves: Array<string | number> = [];
  const stack: unknown[] = [value];
  while (stack.length > 0 && leaves.length < MAX_LEAVES) {
    const current = stack.pop();
    if (typeof current === 'string' || typeof current === 'number') leaves.push(current);
    else if (typeof current === 'object' && current !== null) stack.push(...Object.values(current));
  }
  return leaves;
}

/**
 * Removes every string and number of `value` from `message`. Validators
 * quote what they reject (valibot: `Expected >=1 but received -73519`,
 * `Invalid URL: Received "postgres://…"`), and a config value can be a
 * connection string, so no issue text leaves the client with one, whatever
 * validator wrote it. Longest first, so a value is not half-replaced by a
 * shorter one it contains.
 */
export function scrubValue(message: string, value: unknown): string {
  const forms = new Set<string>();
  for (const leaf of leavesOf(value)) {
    if (typeof leaf === 'number') {
      if (Number.isFinite(leaf)) forms.add(String(leaf));
      continue;
    }
    if (leaf === '') continue;
    forms.add(JSON.stringify(leaf));
    forms.add(`"${leaf}"`);
    forms.add(`'${leaf}'`);
    if (leaf.length >= MIN_BARE_LENGTH) forms.add(leaf);
  }
  let out = message;
  for (const form of [...forms].sort((a, b) => b.length - a.length)) {
    // A number is replaced only where it stands alone (`-73519`, not the `1` inside `>=10`).
    const pattern = /^-?\d/.test(form) ? `(?<![\\w.])${escape(form)}(?![\\w]|\\.\\d)` : escape(form);
    out = out.replace(new RegExp(pattern, 'g'), PLACEHOLDER);
  }
  return out;
}
