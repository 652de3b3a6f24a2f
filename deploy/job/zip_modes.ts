/**
 * Reads the Unix permission bits a zip records in its central directory.
 *
 * fflate's streaming `Unzip` only sees local file headers, which carry no external attributes,
 * so the modes written by `source/zip.ts` (an executable `gradlew` or build script) would be
 * lost on extraction. The central directory at the end of the archive has them.
 *
 * @module
 */

/** Signature of the end-of-central-directory record (`PK\x05\x06`). */
const EOCD_SIGNATURE = 0x06054b50;
/** Signature of a central directory file header (`PK\x01\x02`). */
const CDH_SIGNATURE = 0x02014b50;
/** Fixed size of the end-of-central-directory record, without its comment. */
const EOCD_SIZE = 22;
/** Largest zip comment, so the end record is always within this many bytes of the end. */
const MAX_COMMENT = 0xffff;
/** "Version made by" host system for Unix: only then do external attributes hold a mode. */
const HOST_UNIX = 3;

/** Where the central directory is, read from the end record. */
export interface CentralDirectoryLocation {
  /** Byte offset of the central directory from the start of the archive. */
  readonly offset: number;
  /** Its size in bytes. */
  readonly size: number;
}

/**
 * How many bytes from the end of an archive hold the end-of-central-directory record.
 *
 * @param fileSize the archive's size
 * @returns the length of the tail to read and pass to {@linkcode locateCentralDirectory}
 */
export function eocdTailLength(fileSize: number): number {
  return Math.min(fileSize, EOCD_SIZE + MAX_COMMENT);
}

/**
 * Finds the central directory from the last bytes of an archive.
 *
 * @param tail the last {@linkcode eocdTailLength} bytes of the archive
 * @returns the central directory's offset and size, or `undefined` when there is no end record
 *   or the archive is ZIP64 (fields saturated at 0xFFFF/0xFFFFFFFF), which `source/zip.ts` never writes
 */
export function locateCentralDirectory(tail: Uint8Array): CentralDirectoryLocation | undefined {
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  for (let at = tail.byteLength - EOCD_SIZE; at >= 0; at--) {
    if (view.getUint32(at, true) !== EOCD_SIGNATURE) continue;
    const size = view.getUint32(at + 12, true);
    const offset = view.getUint32(at + 16, true);
    if (size === 0xffffffff || offset === 0xffffffff) return undefined;
    return { offset, size };
  }
  return undefined;
}

/**
 * The permission bits of each entry recorded by a Unix host in a central directory.
 *
 * @param centralDirectory the central directory's bytes
 * @returns entry name → mode (`0o777` bits); entries from other hosts, or with no mode, are absent
 */
export function parseEntryModes(centralDirectory: Uint8Array): Map<string, number> {
  const view = new DataView(
    centralDirectory.buffer,
    centralDirectory.byteOffset,
    centralDirectory.byteLength,
  );
  const modes = new Map<string, number>();
  let at = 0;
  while (at + 46 <= centralDirectory.byteLength && view.getUint32(at, true) === CDH_SIGNATURE) {
    const host = view.getUint8(at + 5);
    const flags = view.getUint16(at + 8, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const external = view.getUint32(at + 38, true);
    const nameBytes = centralDirectory.subarray(at + 46, at + 46 + nameLength);
    // Bit 11 marks a UTF-8 name; without it the name is CP437, read as latin1 like fflate does.
    const name = new TextDecoder((flags & 0x800) !== 0 ? "utf-8" : "latin1").decode(nameBytes);
    const mode = (external >>> 16) & 0o777;
    if (host === HOST_UNIX && mode !== 0) modes.set(name, mode);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return modes;
}

/**
 * Reads the recorded Unix modes of every entry of a zip file.
 *
 * @param zipPath the archive
 * @returns entry name → permission bits (empty when the archive records none)
 */
export async function readZipModes(zipPath: string): Promise<Map<string, number>> {
  using file = await Deno.open(zipPath);
  const size = (await file.stat()).size;
  const tail = await readAt(file, size - eocdTailLength(size), eocdTailLength(size));
  const where = locateCentralDirectory(tail);
  if (where === undefined || where.offset + where.size > size) return new Map();
  return parseEntryModes(await readAt(file, where.offset, where.size));
}

async function readAt(file: Deno.FsFile, position: number, length: number): Promise<Uint8Array> {
  await file.seek(position, Deno.SeekMode.Start);
  const buf = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const n = await file.read(buf.subarray(filled));
    if (n === null) break;
    filled += n;
  }
  return buf.subarray(0, filled);
}
