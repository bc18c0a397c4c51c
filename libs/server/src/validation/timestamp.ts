/** RFC 3339 timestamps as the wire writes them. */
import * as v from 'valibot';
import { describeType, quote } from './json-type.js';
import { checkSchema } from './schema-check.js';

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

const EXPECTED = 'must be an RFC 3339 date-time with Z or an offset, e.g. "2026-11-22T10:00:00Z"';

/**
 * Normalises an RFC 3339 date-time, or says what is wrong with it. valibot's
 * `isoTimestamp` accepts impossible dates and leap seconds and normalises
 * nothing, hence this arithmetic.
 */
function normaliseTimestamp(text: string): { timestamp: string } | { problem: string } {
  const match = RFC3339.exec(text);
  if (match === null) return { problem: `${EXPECTED}; got ${quote(text)}` };
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) {
    return { problem: `is not a valid date-time: ${quote(text)}` };
  }
  let offsetMinutes = 0;
  if (zulu === undefined) {
    const offsetHours = Number(oh);
    const offsetMins = Number(om);
    if (offsetHours > 23 || offsetMins > 59) return { problem: `has an invalid UTC offset: ${quote(text)}` };
    offsetMinutes = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const millis = fraction === undefined ? 0 : Number(fraction.slice(1, 4).padEnd(3, '0'));
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMinutes, second, millis);
  const utcYear = date.getUTCFullYear();
  if (utcYear < 0 || utcYear > 9999) return { problem: `is out of range once converted to UTC: ${quote(text)}` };
  return { timestamp: formatTimestamp(date) };
}

/**
 * An RFC 3339 date-time with `Z` or a numeric offset, or `null` (unbounded),
 * normalised by {@link formatTimestamp}. Digits beyond milliseconds are
 * truncated. Date-only strings, local times without an offset, impossible
 * dates and leap seconds are refused.
 */
export const timestampSchema = v.pipe(
  v.nullable(v.string((issue) => `${EXPECTED}, or null; got ${describeType(issue.input)}`)),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    if (dataset.value === null) return null;
    const result = normaliseTimestamp(dataset.value);
    if ('problem' in result) {
      addIssue({ message: result.problem });
      return NEVER;
    }
    return result.timestamp;
  }),
);

/** Parses a timestamp or `null` (see {@link timestampSchema}). */
export function parseTimestamp(value: unknown, path: string): string | null {
  return checkSchema(timestampSchema, value, path);
}
