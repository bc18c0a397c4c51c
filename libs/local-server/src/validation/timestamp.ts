/** RFC 3339 timestamps as the wire writes them. */
import { describeType, quote } from './json-type.js';
import { fail } from './validation-error.js';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * Formats an instant as the wire does: UTC, `Z`, whole seconds, with
 * milliseconds only when they are not zero (`2026-11-22T10:00:00Z`,
 * `2026-11-22T10:00:00.250Z`).
 */
export function formatTimestamp(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Parses an RFC 3339 date-time with `Z` or a numeric offset, or `null`
 * (unbounded), and returns it normalised by {@link formatTimestamp}. Digits
 * beyond milliseconds are truncated. Date-only strings, local times without
 * an offset, impossible dates and leap seconds are refused.
 */
export function parseTimestamp(value: unknown, path: string): string | null {
  if (value === null) return null;
  const expected = 'must be an RFC 3339 date-time with Z or an offset, e.g. "2026-11-22T10:00:00Z"';
  if (typeof value !== 'string') fail(path, `${expected}, or null; got ${describeType(value)}`);
  const match = RFC3339.exec(value);
  if (match === null) fail(path, `${expected}; got ${quote(value)}`);
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) {
    fail(path, `is not a valid date-time: ${quote(value)}`);
  }
  let offsetMinutes = 0;
  if (zulu === undefined) {
    const offsetHours = Number(oh);
    const offsetMins = Number(om);
    if (offsetHours > 23 || offsetMins > 59) fail(path, `has an invalid UTC offset: ${quote(value)}`);
    offsetMinutes = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const millis = fraction === undefined ? 0 : Number(fraction.slice(1, 4).padEnd(3, '0'));
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMinutes, second, millis);
  const utcYear = date.getUTCFullYear();
  if (utcYear < 0 || utcYear > 9999) fail(path, `is out of range once converted to UTC: ${quote(value)}`);
  return formatTimestamp(date);
}
