/**
 * The journal's on-disk form: one record a line, `<crc32 as 8 hex digits> <JSON>\n`.
 * The checksum covers the JSON's UTF-8 bytes, so a record cut short by a crash
 * (or a line of zeros a filesystem left after one) is told apart from a whole one.
 */
import { readFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { describeFsError } from '../errors/fs-errors.js';
import type { StoredChange } from '../sealing/sealing-codec.js';
import { VaneServerError, type VaneServerErrorOptions } from '../errors/vane-server-error.js';

/** A journal that cannot be replayed: a bad record is followed by good ones, so it is not a torn tail. */
export class JournalFileError extends VaneServerError {
  /** Stable error code. */
  readonly code = 'VANE_LOCAL_JOURNAL_INVALID' as const;

  /** @param message - names the journal file and what is wrong with it. */
  constructor(message: string, options?: VaneServerErrorOptions) {
    super(message, options);
  }
}

/** What {@link readJournalFile} found. */
export interface JournalContents {
  readonly changes: StoredChange[];
  /** Bytes of whole records from the start; the journal is cut here before appending. */
  readonly validBytes: number;
  /** Bytes after them that were dropped: the torn last record of a crash, or 0. */
  readonly droppedBytes: number;
}

const NEWLINE = 0x0a;

/** Encodes one record as a journal line. */
export function encodeJournalRecord(change: StoredChange): Buffer {
  const json = Buffer.from(JSON.stringify(change), 'utf8');
  const checksum = crc32(json).toString(16).padStart(8, '0');
  return Buffer.concat([Buffer.from(`${checksum} `, 'latin1'), json, Buffer.from('\n', 'latin1')]);
}

/**
 * Reads a journal. A bad record at the end (a crash during its write) is
 * dropped; a bad record followed by a good one means the file is damaged,
 * and is refused rather than silently skipped.
 *
 * @returns undefined when the file does not exist.
 * @throws JournalFileError naming the file and the byte offset of the damage.
 */
export function readJournalFile(path: string): JournalContents | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new JournalFileError(`${path}: cannot read the journal (${describeFsError(error)})`, { cause: error });
  }
  const changes: StoredChange[] = [];
  let offset = 0;
  let badAt: number | undefined;
  while (offset < bytes.length) {
    const end = bytes.indexOf(NEWLINE, offset);
    const lineEnd = end === -1 ? bytes.length : end;
    const change = end === -1 ? undefined : decodeRecord(bytes.subarray(offset, lineEnd));
    if (change === undefined) badAt ??= offset;
    else if (badAt !== undefined) {
      throw new JournalFileError(`${path}: the record at byte ${badAt} is damaged and later records are whole`);
    } else changes.push(change);
    offset = lineEnd + 1;
  }
  const validBytes = badAt ?? bytes.length;
  return { changes, validBytes, droppedBytes: bytes.length - validBytes };
}

function decodeRecord(line: Buffer): StoredChange | undefined {
  if (line.length < 10 || line[8] !== 0x20) return undefined;
  const checksum = line.toString('latin1', 0, 8);
  if (!/^[0-9a-f]{8}$/.test(checksum)) return undefined;
  const json = line.subarray(9);
  if (crc32(json) !== parseInt(checksum, 16)) return undefined;
  try {
    return JSON.parse(json.toString('utf8')) as StoredChange;
  } catch {
    return undefined;
  }
}
