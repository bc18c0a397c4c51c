// Flag schedules are RFC 3339 instants in UTC; people type local times.
// `<input type="datetime-local">` takes and gives local wall-clock time.

/** `2026-11-23T10:00:00Z` → `2026-11-23T11:00:00` in the browser's time zone; null → ''. */
export function toLocalInput(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** A datetime-local value (local time) → RFC 3339 UTC without milliseconds; '' → null. */
export function fromLocalInput(value) {
  if (!value) return null;
  return new Date(value).toISOString().replace('.000Z', 'Z');
}

/** An instant as people read it: local time, with UTC in brackets. */
export function describeInstant(iso) {
  return `${new Date(iso).toLocaleString()} (${iso})`;
}
