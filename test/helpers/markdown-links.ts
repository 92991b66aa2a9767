/**
 * The links between the repository's Markdown documents, and the references its code makes to a document's section
 * (`docs/design/flows.md, "Respect's schema check"`), so a test can hold every one of them to a file and a heading
 * that exist. Used (and tested) by test/docs/links.test.ts.
 */

/** A link or a reference found in a document, with where it was found. */
export interface DocumentLink {
  /** The file the link is in, from the repository root. */
  from: string;
  line: number;
  /** The target file from the repository root (`from` itself for `#anchor`), without the anchor. */
  file: string;
  /** The anchor after `#`, if any. */
  anchor?: string;
  /** A quoted section name a code comment cites (`docs/x.md, "Heading"`), instead of an anchor. */
  quote?: string;
}

/**
 * GitHub's heading anchor: lower case, markup and punctuation dropped (letters, digits, spaces, `-` and `_` kept),
 * each space a `-`. The nth repeat of a heading gets `-n`.
 */
export function headingSlug(heading: string): string {
  return (
    heading
      .split("`")
      // HTML tags are markup outside code spans; inside one, `<command>` is text.
      .map((part, index) => (index % 2 === 0 ? part.replace(/<[^>]+>/g, "") : part))
      .join("")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, "")
      .replace(/ /g, "-")
  );
}

/** Lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(text: string): Array<[number, string]> {
  const lines: Array<[number, string]> = [];
  let fence: string | undefined;
  text.split("\n").forEach((line, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (!fence || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence ? undefined : marker;
      return;
    }
    if (!fence) lines.push([index + 1, line]);
  });
  return lines;
}

/** The anchors a Markdown document defines: one per heading (GitHub's slugs, repeats numbered) and each `<a id>`. */
export function documentAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, line] of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const slug = headingSlug(heading[1]!);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1]!);
  }
  return anchors;
}

const posixJoin = (dir: string, target: string) => {
  const parts: string[] = [];
  for (const part of `${dir}/${target}`.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return parts.join("/");
};

/** The relative links of a Markdown document (`[text](target)`, outside code), resolved from the repository root. */
export function markdownLinks(from: string, text: string): DocumentLink[] {
  const dir = from.includes("/") ? from.slice(0, from.lastIndexOf("/")) : "";
  const links: DocumentLink[] = [];
  for (const [line, content] of proseLines(text)) {
    const prose = content.replace(/`[^`]*`/g, "");
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
      const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
      const file = pathPart === "" ? from : posixJoin(dir, decodeURI(pathPart));
      links.push({ from, line, file, ...(anchor ? { anchor } : {}) });
    }
  }
  return links;
}

/**
 * References a source file makes to a design note (`docs/design/<note>.md`) or to a section of a document:
 * `docs/<file>.md, "Section"` (the quote may wrap onto the next line; its first line is what is checked).
 */
export function sectionReferences(from: string, text: string): DocumentLink[] {
  const references: DocumentLink[] = [];
  text.split("\n").forEach((content, index) => {
    for (const match of content.matchAll(/(?<![\w/.-])(docs\/[\w./-]*\w\.md)(?:,? "([^"]+)"?)?/g)) {
      const quote = match[2]?.trim();
      // Other projects' docs are cited too (Schemathesis's `docs/reference/checks.md`): a bare path counts only
      // under this repository's docs/design/; any path counts when a section of it is cited.
      if (!quote && !match[1]!.startsWith("docs/design/")) continue;
      references.push({ from, line: index + 1, file: match[1]!, ...(quote ? { quote } : {}) });
    }
  });
  return references;
}
