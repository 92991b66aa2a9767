/**
 * Layout checks by element boxes, in the page (Chromium through playwright-core): what a reader at a given width
 * would see cut off or covered. For the docs' pages and the sandbox dashboard's views (test/docs/layout.slow.test.ts).
 *   - the document scrolls sideways (its scroll width is past the viewport's);
 *   - an element of the main content is clipped: part of its box lies outside an ancestor that hides its overflow
 *     (`overflow: hidden` or `clip`, not `auto`/`scroll`, which the reader can scroll), or its own text runs past
 *     its box while it hides the overflow;
 *   - interactive elements (links, buttons, fields, summaries) and headings overlap one another, or a button lies
 *     over a line of code (also one shown only on hover, as a copy button);
 *   - a word of a heading is broken across two lines ("Onboardi/ng").
 */
import type { Page } from "playwright-core";

export interface LayoutScope {
  /** The main content: the elements checked for clipping (a CSS selector; every match). */
  main: string;
  /** Elements left out of every check (a CSS selector), e.g. a third-party widget with its own tests. */
  ignore?: string;
}

/** Each problem as one line naming the element (its tag, classes and first words). */
export async function layoutProblems(page: Page, scope: LayoutScope): Promise<string[]> {
  // A loader that keeps function names (tsx) wraps named functions in `__name(…)`, which the page lacks.
  await page.evaluate("globalThis.__name ??= (f) => f");
  await page.evaluate(settledLayout, SETTLE_MS);
  await page.evaluate(installKit, scope.ignore);
  return [
    ...(await page.evaluate(sidewaysProblems)),
    ...(await page.evaluate(clippingProblems, scope.main)),
    ...(await page.evaluate(overlapProblems)),
    ...(await page.evaluate(coveredCodeProblems)),
    ...(await page.evaluate(brokenHeadingProblems)),
  ];
}

/** The longest wait for a page's layout to settle before the checks read it. */
const SETTLE_MS = 10_000;

/**
 * Waits, in the page, until its fonts are loaded and the boxes of its links, buttons and headings stay the same over
 * three frames in a row (at most `limitMs`): a page still laying out (a menu drawn in steps, a font swapped in, on
 * a loaded machine) shows boxes on top of one another that a reader never sees.
 */
async function settledLayout(limitMs: number): Promise<void> {
  const boxes = () =>
    [...document.querySelectorAll("a[href], button, h1, h2, h3, h4")]
      .map((element) => {
        const box = element.getBoundingClientRect();
        return `${box.x},${box.y},${box.width},${box.height}`;
      })
      .join(";");
  await document.fonts.ready;
  const deadline = performance.now() + limitMs;
  let last = boxes();
  for (let same = 0; same < 3 && performance.now() < deadline; ) {
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 30)));
    const now = boxes();
    same = now === last ? same + 1 : 0;
    last = now;
  }
}

/** What every check uses, installed in the page once (`globalThis.__layoutKit`): each check is evaluated alone. */
interface Kit {
  name(element: Element): string;
  ignored(element: Element): boolean;
  visibleBox(element: Element): DOMRect;
  fixed(element: Element): boolean;
  shown(element: Element): boolean;
  hides(style: CSSStyleDeclaration): boolean;
  scrolls(style: CSSStyleDeclaration): boolean;
  overlaps(a: DOMRect, b: DOMRect): boolean;
}

/** Installs the kit in the page; `ignore` leaves elements out of every check. */
function installKit(ignore: string | undefined): void {
  const name = (element: Element) => {
    const classes = [...element.classList].slice(0, 2).join(".");
    const text = (element.textContent ?? "").replace(/\s+/g, " ").trim().slice(0, 40);
    return `<${element.tagName.toLowerCase()}${classes ? `.${classes}` : ""}> "${text}"`;
  };
  const ignored = (element: Element) => (ignore ? element.closest(ignore) !== null : false);
  /** The part of an element's box its scrolling and clipping ancestors let through. */
  const visibleBox = (element: Element) => {
    const box = element.getBoundingClientRect();
    let [left, top, right, bottom] = [box.left, box.top, box.right, box.bottom];
    for (let up = element.parentElement; up && up !== document.body; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.overflowX === "visible" && style.overflowY === "visible") continue;
      const edge = up.getBoundingClientRect();
      [left, top, right, bottom] = [
        Math.max(left, edge.left),
        Math.max(top, edge.top),
        Math.min(right, edge.right),
        Math.min(bottom, edge.bottom),
      ];
    }
    return new DOMRect(left, top, Math.max(0, right - left), Math.max(0, bottom - top));
  };
  const fixed = (element: Element) => {
    for (let at: Element | null = element; at && at !== document.body; at = at.parentElement)
      if (getComputedStyle(at).position === "fixed") return true;
    return false;
  };
  const shown = (element: Element) => {
    const box = element.getBoundingClientRect();
    // A box of 1 px or less is text for screen readers only (visually-hidden), not something a reader sees.
    if (box.width < 2 || box.height < 2) return false;
    const style = getComputedStyle(element);
    return style.visibility !== "hidden" && style.display !== "contents" && Number(style.opacity) > 0;
  };
  const hides = (style: CSSStyleDeclaration) => style.overflowX === "hidden" || style.overflowX === "clip";
  const scrolls = (style: CSSStyleDeclaration) => style.overflowX === "auto" || style.overflowX === "scroll";
  const overlaps = (a: DOMRect, b: DOMRect) =>
    Math.min(a.right, b.right) - Math.max(a.left, b.left) > 2 &&
    Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 2;
  const kit: Kit = { name, ignored, visibleBox, fixed, shown, hides, scrolls, overlaps };
  (globalThis as unknown as { __layoutKit: Kit }).__layoutKit = kit;
}

/** The document scrolling sideways. */
function sidewaysProblems(): string[] {
  const view = document.documentElement;
  const viewportWidth = view.clientWidth;
  return view.scrollWidth > viewportWidth + 1
    ? [`the document scrolls sideways: ${view.scrollWidth} px wide in a ${viewportWidth} px viewport`]
    : [];
}

/** Clipping: leaf-ish elements (those with text of their own, or controls) of the main content. */
function clippingProblems(main: string): string[] {
  const { name, ignored, shown, hides, scrolls } = (globalThis as unknown as { __layoutKit: Kit }).__layoutKit;
  const problems: string[] = [];
  const roots = [...document.querySelectorAll(main)];
  const reported = new Set<Element>();
  for (const root of roots) {
    for (const element of [root, ...root.querySelectorAll("*")]) {
      if (ignored(element) || !shown(element)) continue;
      const ownText = [...element.childNodes].some(
        (node) => node.nodeType === Node.TEXT_NODE && (node.textContent ?? "").trim() !== "",
      );
      const control = element.matches("a, button, input, select, textarea, summary, img, svg, pre, code, th, td");
      if (!ownText && !control) continue;
      const style = getComputedStyle(element);
      if (
        hides(style) &&
        style.textOverflow !== "ellipsis" &&
        element.scrollWidth > element.clientWidth + 1 &&
        !["INPUT", "SELECT", "TEXTAREA"].includes(element.tagName)
      ) {
        problems.push(`${name(element)} hides ${element.scrollWidth - element.clientWidth} px of its own content`);
        continue;
      }
      const box = element.getBoundingClientRect();
      for (let up = element.parentElement; up && up !== document.body; up = up.parentElement) {
        const upStyle = getComputedStyle(up);
        if (scrolls(upStyle)) break; // a scrolling box: the reader scrolls to the rest
        if (!hides(upStyle)) continue;
        const edge = up.getBoundingClientRect();
        const cut = Math.max(edge.left - box.left, box.right - edge.right);
        if (cut > 1 && !reported.has(up)) {
          reported.add(up);
          problems.push(`${name(element)} is cut by ${Math.round(cut)} px at the edge of ${name(up)}`);
        }
        break;
      }
    }
  }
  return problems;
}

/** Overlaps between interactive elements and headings anywhere on the page. */
function overlapProblems(): string[] {
  const { name, ignored, visibleBox, fixed, shown, overlaps } = (globalThis as unknown as { __layoutKit: Kit })
    .__layoutKit;
  const problems: string[] = [];
  const targets = [
    ...document.querySelectorAll("a[href], button, input, select, textarea, summary, [role=button], h1, h2, h3, h4"),
  ].filter((element) => !ignored(element) && shown(element) && !fixed(element));
  // A floating button (position: fixed) sits over whatever scrolls under it, by design: left out.
  const boxes = targets
    .map((element) => ({ element, box: visibleBox(element) }))
    .filter(({ box }) => box.width >= 2 && box.height >= 2);
  boxes.sort((a, b) => a.box.top - b.box.top);
  for (let i = 0; i < boxes.length; i++) {
    const a = boxes[i]!;
    for (let j = i + 1; j < boxes.length && boxes[j]!.box.top < a.box.bottom; j++) {
      const b = boxes[j]!;
      if (a.element.contains(b.element) || b.element.contains(a.element)) continue;
      if (overlaps(a.box, b.box)) problems.push(`${name(a.element)} and ${name(b.element)} overlap`);
    }
  }
  return problems;
}

/** A button over a line of code, shown or not: a copy button that appears on hover covers the code then. */
function coveredCodeProblems(): string[] {
  const { name, ignored, visibleBox, fixed, shown, overlaps } = (globalThis as unknown as { __layoutKit: Kit })
    .__layoutKit;
  const problems: string[] = [];
  const buttons = [...document.querySelectorAll("button, [role=button]")]
    .filter((element) => {
      if (ignored(element) || fixed(element)) return false;
      const box = element.getBoundingClientRect();
      return box.width >= 2 && box.height >= 2;
    })
    .map((element) => ({ element, box: visibleBox(element) }));
  for (const pre of document.querySelectorAll("pre")) {
    if (ignored(pre) || !shown(pre)) continue;
    const near = buttons.filter(({ box }) => overlaps(box, pre.getBoundingClientRect()));
    if (near.length === 0) continue;
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    let covered = false;
    for (let node = walker.nextNode(); node && !covered; node = walker.nextNode()) {
      if ((node.textContent ?? "").trim() === "") continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const rect of range.getClientRects())
        for (const { element, box } of near)
          if (!element.contains(node) && overlaps(rect, box)) {
            problems.push(`${name(element)} covers code "${(node.textContent ?? "").trim().slice(0, 30)}"`);
            covered = true;
          }
    }
  }
  return problems;
}

/** A heading's word broken across lines. */
function brokenHeadingProblems(): string[] {
  const { name, ignored, shown } = (globalThis as unknown as { __layoutKit: Kit }).__layoutKit;
  const problems: string[] = [];
  for (const heading of document.querySelectorAll("h1, h2, h3")) {
    if (ignored(heading) || !shown(heading)) continue;
    const walker = document.createTreeWalker(heading, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? "";
      for (const word of text.matchAll(/[^\s\u200b/-]{2,}/g)) {
        const range = document.createRange();
        range.setStart(node, word.index!);
        range.setEnd(node, word.index! + word[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) problems.push(`heading ${name(heading)} breaks the word "${word[0]}" across lines`);
      }
    }
  }
  return problems;
}
