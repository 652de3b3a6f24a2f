// deno-lint-ignore-file no-console -- benchmarks print their results
/**
 * What the deploy benchmarks share: the `name: value unit` result line and a generated site of
 * pages and hashed assets (random bytes, so nothing compresses or deduplicates).
 *
 * @module
 */
import { mapLimited } from "@org/shared";

/**
 * Prints one result line.
 *
 * @param name the figure's name
 * @param value its value (two decimals unless an integer)
 * @param unit its unit
 */
export function line(name: string, value: number, unit: string): void {
  console.log(`${name}: ${Number.isInteger(value) ? value : value.toFixed(2)} ${unit}`);
}

/**
 * Bytes as MiB.
 *
 * @param bytes a byte count
 * @returns MiB
 */
export const mb = (bytes: number): number => bytes / (1024 * 1024);

/**
 * Random bytes (what a changed file gets).
 *
 * @param size how many
 * @returns the bytes
 */
export function fill(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i += 65536) crypto.getRandomValues(bytes.subarray(i, i + 65536));
  return bytes;
}

/**
 * Writes a site of `files` files, a tenth of them HTML pages of ~4 KiB and the rest hashed
 * assets, about `totalBytes` in all, sizes varied ±50% around each mean.
 *
 * @param dir where to write it
 * @param files how many files
 * @param totalBytes about how many bytes
 * @returns the keys (pages first) and the bytes written
 */
export async function generateSite(
  dir: string,
  files: number,
  totalBytes: number,
): Promise<{ keys: string[]; bytes: number }> {
  const pages = Math.floor(files / 10);
  const keys: string[] = [];
  const pageSize = 4 * 1024;
  const assetSize = Math.floor((totalBytes - pages * pageSize) / (files - pages));
  for (let i = 0; i < files; i++) {
    const sub = `d${String(i % 100).padStart(2, "0")}`;
    keys.push(
      i < pages
        ? `${sub}/page${i}/index.html`
        : `_astro/${sub}/asset${i}.${i.toString(16)}0a1b2c3.js`,
    );
  }
  let bytes = 0;
  await mapLimited(keys, 16, async (key, i) => {
    const path = `${dir}/${key}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    const mean = i < pages ? pageSize : assetSize;
    const size = Math.max(64, Math.round(mean * (0.5 + ((i * 7919) % 1000) / 1000)));
    await Deno.writeFile(path, fill(size));
    bytes += size;
  });
  return { keys, bytes };
}
