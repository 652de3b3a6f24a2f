/**
 * The shell commands of a README section, as a reader copies them: every line of the section's
 * `sh` code blocks, comments and blank lines left out, `\`-continued lines joined. Pure, so the
 * executable README test runs what the README says and nothing else.
 *
 * @module
 */

/**
 * The commands of the `## heading` section (up to the next `## `), in order.
 *
 * @param markdown the README
 * @param heading the section's heading text, without `## `
 * @returns the commands
 * @throws Error when there is no such section (a renamed heading must fail the test, not skip it)
 */
export function sectionCommands(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no section "## ${heading}"`);
  const end = markdown.indexOf("\n## ", start + 4);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const commands: string[] = [];
  for (const block of section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    let pending = "";
    for (const raw of block[1]!.split("\n")) {
      // A comment starts at a `#` after whitespace (none of the commands quotes one).
      const line = raw.replace(/(^|\s)#.*$/, "").trimEnd();
      if (line.endsWith("\\")) {
        pending += line.slice(0, -1).trimEnd() + " ";
        continue;
      }
      const command = (pending + line.trimStart()).trim();
      pending = "";
      if (command !== "") commands.push(command);
    }
  }
  return commands;
}
