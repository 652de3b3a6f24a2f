/**
 * Unpacks a source zip into a directory, streaming.
 *
 * @module
 */
import { Unzip, UnzipInflate } from "fflate";
import { DeployError } from "../errors.ts";
import { readZipModes } from "./zip_modes.ts";

/**
 * Extracts every entry of `zipPath` under `destDir`, reading and inflating chunk by chunk.
 * Entry names with `..` segments or a leading `/` are refused (zip-slip). A file whose mode
 * recorded in the central directory has an execute bit is made `0755` (the streaming reader
 * never sees modes, so they are read from the central directory first).
 *
 * @param zipPath the archive
 * @param destDir an existing directory
 * @returns the number of files written
 * @throws DeployError `source_zip_invalid` for an unsafe entry name or a corrupt archive
 */
export async function extractZip(zipPath: string, destDir: string): Promise<number> {
  const modes = await readZipModes(zipPath);
  const executables: string[] = [];
  let count = 0;
  let failure: unknown;
  const made = new Set<string>();
  const unzip = new Unzip((entry) => {
    const name = entry.name;
    if (name.startsWith("/") || name.split("/").includes("..") || name.includes("\\")) {
      failure ??= new DeployError("source_zip_invalid", `unsafe entry name in source zip: ${name}`);
      return;
    }
    if (name.endsWith("/")) {
      Deno.mkdirSync(`${destDir}/${name}`, { recursive: true });
      return;
    }
    const slash = name.lastIndexOf("/");
    if (slash > 0) {
      const dir = `${destDir}/${name.slice(0, slash)}`;
      if (!made.has(dir)) {
        Deno.mkdirSync(dir, { recursive: true });
        made.add(dir);
      }
    }
    const file = Deno.openSync(`${destDir}/${name}`, { write: true, create: true, truncate: true });
    entry.ondata = (err, data, final) => {
      if (err) {
        failure ??= new DeployError("source_zip_invalid", `corrupt source zip entry ${name}`);
        file.close();
        return;
      }
      let offset = 0;
      while (offset < data.byteLength) offset += file.writeSync(data.subarray(offset));
      if (final) {
        file.close();
        count++;
        if (((modes.get(name) ?? 0) & 0o111) !== 0) executables.push(`${destDir}/${name}`);
      }
    };
    entry.start();
  });
  unzip.register(UnzipInflate);
  using input = await Deno.open(zipPath);
  for await (const chunk of input.readable) {
    unzip.push(chunk);
    if (failure !== undefined) throw failure;
  }
  unzip.push(new Uint8Array(0), true);
  if (failure !== undefined) throw failure;
  if (Deno.build.os !== "windows") {
    for (const path of executables) await Deno.chmod(path, 0o755);
  }
  return count;
}
