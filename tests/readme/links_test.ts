/**
 * Every relative link and anchor in README.md and docs/ resolves: a newcomer following the
 * README is never sent to a file or a heading that is not there.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { REPO_ROOT } from "../support/token_server.ts";
import { anchorsOf, brokenLink, type MarkdownLink, relativeLinks } from "./markdown_links.ts";

async function markdownFiles(): Promise<string[]> {
  const files = ["README.md"];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(join(REPO_ROOT, dir))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".md")) files.push(path);
    }
  };
  await walk("docs");
  return files.sort();
}

function readRepoFile(path: string): string | undefined {
  try {
    const full = join(REPO_ROOT, path);
    if (relative(REPO_ROOT, full).startsWith("..")) return undefined;
    return Deno.statSync(full).isDirectory ? "" : Deno.readTextFileSync(full);
  } catch {
    return undefined;
  }
}

Deno.test("docs: every relative link and anchor in README.md and docs/ resolves", async () => {
  const links: MarkdownLink[] = [];
  for (const file of await markdownFiles()) {
    links.push(...relativeLinks(file, readRepoFile(file)!));
  }
  assert.ok(links.length > 50, `only ${links.length} links found: the scan is broken`);
  const broken = links.flatMap((l) => {
    const why = brokenLink(l, readRepoFile);
    return why ? [`${l.from}:${l.line}: ${l.target}: ${why}`] : [];
  });
  assert.deepEqual(broken, []);
});

Deno.test("relativeLinks() skips code and external links; brokenLink() checks files and anchors", () => {
  const md = "See [a](docs/x.md#two-words) and [b](https://e.x) `[c](nope.md)`\n" +
    "```\n[d](nope.md)\n```\n[e]: ./y.md\n";
  const links = relativeLinks("README.md", md);
  assert.deepEqual(links.map((l) => l.target), ["docs/x.md#two-words", "./y.md"]);
  const files: Record<string, string> = {
    "docs/x.md": "# Two words\n## Two, words!\n## Publishing: `plan`\n```\n# not a heading\n```\n",
  };
  const read = (p: string) => files[p];
  assert.equal(brokenLink(links[0]!, read), undefined);
  assert.equal(brokenLink(links[1]!, read), "y.md does not exist");
  assert.equal(
    brokenLink({ from: "README.md", target: "docs/x.md#providers", line: 1 }, read),
    'docs/x.md has no heading or anchor "#providers"',
  );
  assert.deepEqual([...anchorsOf(files["docs/x.md"]!)], [
    "two-words",
    "two-words-1",
    "publishing-plan",
  ]);
});
