// Config values are edited as JSON. The page checks only that the text is
// JSON; what the server accepts (no objects, key rules) the server says, and
// the page shows its message as it is.

/**
 * @param {string} text
 * @returns {{ ok: true, value: unknown } | { ok: false, message: string }}
 */
export function parseJsonInput(text) {
  if (text.trim() === '') return { ok: false, message: 'Enter a JSON value, e.g. "text", 42, true, [1, 2] or null.' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `Not valid JSON (${error.message}). Nothing was sent.` };
  }
}
