import assert from "node:assert/strict";
import { markdownToText, truncateUtf8 } from "./plain_text.ts";

Deno.test("markdownToText() keeps the words and drops Markdown, HTML and MDX syntax", () => {
  const body = [
    'import Chart from "../components/Chart.astro";',
    "",
    "# A heading",
    "",
    "Some **bold**, _italic_ and `code` with [a link](https://example.com) and ![alt](/x.png).",
    "",
    "> quoted",
    "- item one",
    "1. item two",
    "",
    "<Chart data={[1, 2]} />",
    "<!-- a comment -->",
    "```ts",
    "const x = 1;",
    "```",
  ].join("\n");
  assert.equal(
    markdownToText(body),
    "A heading\n\nSome bold, italic and code with a link and alt.\n\nquoted\n" +
      "item one\nitem two\n\nconst x = 1;",
  );
});

Deno.test("truncateUtf8() never splits an emoji or a letter from its combining marks", () => {
  const family = "👨‍👩‍👧"; // 18 bytes, one grapheme
  assert.equal(truncateUtf8(`ab${family}`, 19), "ab");
  assert.equal(truncateUtf8(`ab${family}`, 20), `ab${family}`);
  assert.equal(truncateUtf8("e\u0301e\u0301", 4), "e\u0301");
});
