/**
 * The text of each page of a PDF that Chromium printed (Skia's PDF writer), for tests that check what is on
 * paper: page objects in document order, their FlateDecode content streams inflated (fflate), and each
 * shown string mapped to Unicode through its font's ToUnicode CMap (Skia embeds Type0 fonts, Identity-H,
 * glyph ids as hex strings). Enough for Chromium's own output, not a general PDF reader: no object
 * streams, no encryption, no other encodings.
 */
import { unzlibSync } from "fflate";

const latin1 = new TextDecoder("latin1");

/** The PDF's objects by number, as latin-1 text; a stream's bytes separately. */
function objectsOf(pdf: Uint8Array): Map<number, { dict: string; stream: Uint8Array | null }> {
  const text = latin1.decode(pdf);
  const objects = new Map<number, { dict: string; stream: Uint8Array | null }>();
  const re = /(\d+) 0 obj\s*([\s\S]*?)endobj/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const body = m[2];
    const at = body.indexOf("stream");
    if (at < 0) {
      objects.set(Number(m[1]), { dict: body, stream: null });
      continue;
    }
    const dict = body.slice(0, at);
    // Latin-1 maps each byte to one character, so string offsets are byte offsets.
    let start = m.index + m[0].indexOf(body) + at + "stream".length;
    if (text[start] === "\r") start++;
    if (text[start] === "\n") start++;
    const length = Number(/\/Length (\d+)/.exec(dict)?.[1]);
    const raw = pdf.subarray(start, start + length);
    objects.set(Number(m[1]), { dict, stream: /\/FlateDecode/.test(dict) ? unzlibSync(raw) : raw });
  }
  return objects;
}

/** A ToUnicode CMap: glyph code (hex) → text. */
function cmapOf(source: string): Map<string, string> {
  const map = new Map<string, string>();
  const unicode = (hex: string) =>
    String.fromCharCode(...(hex.match(/.{4}/g) ?? []).map((h) => parseInt(h, 16)));
  for (const block of source.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const [, code, to] of block[1].matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>/g)) {
      map.set(code.toLowerCase(), unicode(to));
    }
  }
  for (const block of source.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (
      const [, lo, hi, to] of block[1].matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>/g)
    ) {
      const first = parseInt(to, 16);
      for (let c = parseInt(lo, 16); c <= parseInt(hi, 16); c++) {
        map.set(c.toString(16).padStart(lo.length, "0"), String.fromCharCode(first + c - parseInt(lo, 16)));
      }
    }
  }
  return map;
}

const ref = (dict: string, key: string) => Number(new RegExp(`/${key} (\\d+) 0 R`).exec(dict)?.[1]);

/**
 * Each page's text, in page order: the strings it shows, each run of text (a line of a box, a margin box)
 * separated from the next by a space, ligatures as their letters, white space collapsed.
 */
export function pdfPageTexts(pdf: Uint8Array): string[] {
  const objects = objectsOf(pdf);
  const dictOf = (n: number) => objects.get(n)?.dict ?? "";
  const pagesRoot = [...objects.values()].find((o) =>
    /\/Type \/Pages\b/.test(o.dict) && !/\/Parent/.test(o.dict)
  );
  if (!pagesRoot) throw new Error("the PDF has no page tree");
  const order: number[] = [];
  const walk = (dict: string) => {
    for (const [, kid] of (/\/Kids \[([^\]]*)\]/.exec(dict)?.[1] ?? "").matchAll(/(\d+) 0 R/g)) {
      const d = dictOf(Number(kid));
      if (/\/Type \/Pages\b/.test(d)) walk(d);
      else order.push(Number(kid));
    }
  };
  walk(pagesRoot.dict);
  const cmaps = new Map<number, Map<string, string>>();
  const cmapOfFont = (font: number) => {
    let cmap = cmaps.get(font);
    if (!cmap) {
      const stream = objects.get(ref(dictOf(font), "ToUnicode"))?.stream;
      cmap = stream ? cmapOf(latin1.decode(stream)) : new Map();
      cmaps.set(font, cmap);
    }
    return cmap;
  };
  return order.map((n) => {
    const page = dictOf(n);
    const fonts = new Map<string, number>();
    for (
      const [, name, font] of (/\/Font <<([^>]*)>>/.exec(page)?.[1] ?? "").matchAll(/\/(\S+) (\d+) 0 R/g)
    ) {
      fonts.set(name, Number(font));
    }
    const contents = /\/Contents (?:\[([^\]]*)\]|(\d+) 0 R)/.exec(page) ?? [];
    const streams = contents[1] ? [...contents[1].matchAll(/(\d+) 0 R/g)].map((m) => Number(m[1])) : [
      Number(contents[2]),
    ];
    const runs: string[] = [];
    for (const s of streams) {
      const ops = latin1.decode(objects.get(s)?.stream ?? new Uint8Array());
      let cmap = new Map<string, string>();
      // Chromium writes a run of text as one BT … ET block, often a glyph at a time (Tj after Td).
      for (const [, block] of ops.matchAll(/\bBT\b([\s\S]*?)\bET\b/g)) {
        let run = "";
        const op = /\/(\S+) [\d.]+ Tf|\[([^\]]*)\]\s*TJ|<([0-9a-fA-F]*)>\s*Tj/g;
        for (let m = op.exec(block); m; m = op.exec(block)) {
          if (m[1] !== undefined) {
            cmap = cmapOfFont(fonts.get(m[1]) ?? -1);
            continue;
          }
          const hex = m[2] !== undefined
            ? [...m[2].matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => h[1]).join("")
            : m[3];
          // Identity-H: two bytes per glyph.
          run += (hex.match(/.{4}/g) ?? []).map((g) => cmap.get(g.toLowerCase()) ?? "\uFFFD").join("");
        }
        runs.push(run);
      }
    }
    // NFKC: a ligature glyph maps to its letters' one character ("ﬁ"); read as the letters.
    return runs.join(" ").normalize("NFKC").replace(/\s+/g, " ").trim();
  });
}
