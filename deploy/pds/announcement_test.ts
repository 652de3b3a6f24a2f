import assert from "node:assert/strict";
import { announcementRecord, announcementText } from "./announcement.ts";

const segments = (text: string) =>
  [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text)].length;
const utf8 = (text: string) => new TextEncoder().encode(text);
const URL_ = "https://blog.example/posts/hello/";

Deno.test("announcementText() fills the template and puts a link facet over the URL's UTF-8 bytes", () => {
  const out = announcementText("📝 {title} — {url}", {
    title: "Café",
    description: "d",
    url: URL_,
  })!;
  assert.equal(out.text, `📝 Café — ${URL_}`);
  const { byteStart, byteEnd } = out.facets[0]!.index;
  // 📝 is 4 bytes, é 2 and — 3: code-unit offsets would point into the middle of the URL.
  assert.equal(byteStart, 4 + 1 + 5 + 1 + 3 + 1);
  assert.equal(new TextDecoder().decode(utf8(out.text).slice(byteStart, byteEnd)), URL_);
  assert.deepEqual(out.facets[0]!.features, [{
    $type: "app.bsky.richtext.facet#link",
    uri: URL_,
  }]);
});

Deno.test("announcementText() shortens the description, then the title, never the URL, to 300 graphemes", () => {
  const description = "👨‍👩‍👧e\u0301".repeat(400); // 800 graphemes of emoji and combining marks
  const out = announcementText("{title}\n{description}\n{url}", {
    title: "Title",
    description,
    url: URL_,
  })!;
  assert.equal(segments(out.text), 300);
  assert.ok(out.text.startsWith("Title\n👨‍👩‍👧e\u0301"));
  assert.ok(out.text.endsWith(`…\n${URL_}`));
  assert.ok(utf8(out.text).length <= 3000);
  // No emoji or accent was split: every grapheme of the kept part is a whole one.
  const kept = out.text.split("\n")[1]!.slice(0, -1);
  assert.equal(kept, description.slice(0, kept.length));

  const title = announcementText("{title} {description} {url}", {
    title: "x".repeat(400),
    description: "gone",
    url: URL_,
  })!;
  assert.equal(segments(title.text), 300);
  assert.match(title.text, /^x+… {2}https:/);
});

Deno.test("announcementText() holds combining marks to 3000 bytes even under 300 graphemes", () => {
  // One letter with 20 combining marks is one grapheme of 41 bytes: bytes bind first.
  const zalgo = "a" + "\u0301".repeat(20);
  const out = announcementText("{description} {url}", {
    title: "t",
    description: zalgo.repeat(200),
    url: URL_,
  })!;
  assert.ok(utf8(out.text).length <= 3000);
  assert.ok(segments(out.text) < 300);
});

Deno.test("announcementText() gives up when the URL alone does not fit", () => {
  assert.equal(
    announcementText("{url} {url}", {
      title: "t",
      description: "d",
      url: "https://x/" + "a".repeat(200),
    }),
    undefined,
  );
});

Deno.test("announcementRecord() makes a link card with the thumbnail", () => {
  const thumb = {
    $type: "blob" as const,
    ref: { $link: "bafkreiabc" },
    mimeType: "image/png",
    size: 3,
  };
  const text = announcementText("{url}", { title: "T", description: "D", url: URL_ })!;
  assert.deepEqual(
    announcementRecord(
      text,
      { title: "T", description: "D", url: URL_ },
      "2026-01-02T00:00:00.000Z",
      thumb,
    ),
    {
      $type: "app.bsky.feed.post",
      text: URL_,
      facets: text.facets,
      embed: {
        $type: "app.bsky.embed.external",
        external: { uri: URL_, title: "T", description: "D", thumb },
      },
      createdAt: "2026-01-02T00:00:00.000Z",
    },
  );
});
