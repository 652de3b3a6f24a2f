import assert from "node:assert/strict";
import { sectionCommands } from "./readme_commands.ts";

Deno.test("sectionCommands() takes a section's sh lines, without comments, joining continuations", () => {
  const md =
    "# T\n\n## Quick start\n\n```sh\na --x   # first\n\n# only a comment\nb \\\n  --y\n```\n\n" +
    "```ts\nnot(shell)\n```\n\n## Next\n\n```sh\nc\n```\n";
  assert.deepEqual(sectionCommands(md, "Quick start"), ["a --x", "b --y"]);
  assert.deepEqual(sectionCommands(md, "Next"), ["c"]);
  assert.throws(() => sectionCommands(md, "Gone"), /no section "## Gone"/);
});
