// Rendering model output. Everything an assistant says is untrusted: a prompt injection, a
// malicious upstream or a hand-edited snapshot may try to run script or leak the conversation.
// markdown-it parses with raw HTML off; DOMPurify then sanitises what it produced, with hooks
// that enforce the link and image policy a second time on the final DOM. TeX ($…$, $$…$$,
// \(…\), \[…\]) is typeset by KaTeX as MathML (no fonts or styles to load), with `trust` off,
// and sanitised like the rest; KaTeX loads only once an answer holds math.

import { MathFinder } from "./math.js";

// Vendored at build time (static/runtime/vendor) and loaded by URL when the first renderer is
// made (when the chat shows: a closed launcher loads neither).
const VENDOR = new URL("./runtime/vendor/", import.meta.url);
/** @type {Promise<[any, any]> | null} */
let vendors = null;

const SAFE_LINK = /^(?:https?:|mailto:)/i;
/** Every line break, as widget/line_breaks.py has it: markdown-it ends a line at CR, LF and
 * CRLF; the Unicode separators end one here too, as in the Markdown download. */
const LINE_BREAK = /\r\n|[\n\r\u0085\u2028\u2029]/g;
const ALLOWED_TAGS = [
  "p", "br", "hr", "em", "strong", "del", "s", "code", "pre", "blockquote", "ul", "ol", "li",
  "a", "img", "table", "thead", "tbody", "tr", "th", "td", "h1", "h2", "h3", "h4", "h5", "h6",
  "div", "button", "span",
  // MathML, as KaTeX writes it (its <semantics> and TeX <annotation> are taken out first)
  "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup", "msubsup", "mfrac",
  "msqrt", "mroot", "mstyle", "mtable", "mtr", "mtd", "mlabeledtr", "mover", "munder",
  "munderover", "mpadded", "mphantom", "menclose", "merror", "mmultiscripts",
];
const ALLOWED_ATTR = ["href", "title", "alt", "src", "class", "start", "type", "target", "rel",
  "xmlns", "display", "mathvariant", "stretchy", "fence", "separator", "lspace", "rspace",
  "accent", "accentunder", "minsize", "maxsize", "largeop", "linethickness", "columnalign",
  "columnlines", "columnspacing", "rowlines", "rowspacing", "displaystyle", "scriptlevel",
  "notation", "mathcolor", "mathbackground", "mathsize", "width", "height", "depth", "voffset"];
/** KaTeX's options: MathML only, no \href, \url or \html…, bounded macro expansion. */
const KATEX_OPTIONS = { output: "mathml", throwOnError: true, trust: false, strict: "ignore",
  maxExpand: 500, maxSize: 20 };

/**
 * Makes a renderer for one widget, once markdown-it and DOMPurify have loaded.
 * @param {{imageHosts?: Iterable<string>, copyLabel?: () => string}} options  hosts whose https
 *   images may show inline; the label of a code block's copy button, in the widget's language
 * @returns {Promise<(target: HTMLElement, text: string) => void>}
 */
export async function createRenderer({ imageHosts = [], copyLabel = () => "Copy" } = {}) {
  vendors ??= Promise.all([
    import(new URL("markdown-it.mjs", VENDOR).href),
    import(new URL("dompurify.mjs", VENDOR).href),
  ]);
  const [{ default: MarkdownIt }, { default: DOMPurify }] = await vendors;
  const allowedImageHosts = new Set([...imageHosts].map((host) => host.toLowerCase()));
  const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false });
  markdown.validateLink = (url) => SAFE_LINK.test(normalise(url));

  const defaultLinkOpen = markdown.renderer.rules.link_open ?? ((tokens, i, options, env, self) => self.renderToken(tokens, i, options));
  markdown.renderer.rules.link_open = (tokens, index, options, env, self) => {
    tokens[index].attrSet("target", "_blank");
    tokens[index].attrSet("rel", "noopener noreferrer");
    return defaultLinkOpen(tokens, index, options, env, self);
  };
  // An image URL can carry the conversation to whoever serves it: only listed hosts load.
  markdown.renderer.rules.image = (tokens, index) => {
    const token = tokens[index];
    const src = token.attrGet("src") ?? "";
    const alt = token.content || "image";
    if (imageAllowed(src, allowedImageHosts)) {
      return `<img src="${escape(src)}" alt="${escape(alt)}">`;
    }
    return SAFE_LINK.test(normalise(src))
      ? `<a href="${escape(src)}" target="_blank" rel="noopener noreferrer">🖼 ${escape(alt)}</a>`
      : escape(`[${alt}]`);
  };
  markdown.renderer.rules.fence = (tokens, index) => {
    const token = tokens[index];
    const language = token.info.trim().split(/\s+/)[0].replace(/[^\w+-]/g, "");
    const cls = language ? ` class="language-${language}"` : "";
    return `<div class="code"><button type="button" class="copy">${escape(copyLabel())}</button><pre><code${cls}>${escape(token.content)}</code></pre></div>`;
  };

  // TeX: typeset once KaTeX is here; until then (and if it cannot be read) shown as written.
  /** @type {WeakMap<HTMLElement, string>} what each target shows, to draw again with math */
  const shown = new WeakMap();
  let waitingForMath = false;
  markdown.inline.ruler.before("escape", "math", (state, silent) => {
    // One finder per inline text (a paragraph's), kept on markdown-it's state for it.
    state.mathFinder ??= new MathFinder(state.src);
    const found = state.mathFinder.at(state.pos);
    if (!found) return false;
    if (!silent) {
      const token = state.push("math", "", 0);
      token.content = found.tex;
      token.markup = state.src.slice(state.pos, found.end);
      token.meta = { display: found.display };
    }
    state.pos = found.end;
    return true;
  });
  markdown.renderer.rules.math = (tokens, index) => {
    const { content, markup, meta } = tokens[index];
    if (!katex) {
      waitingForMath = true;
      return `<code class="tex-source">${escape(markup)}</code>`;
    }
    return typeset(content, markup, meta.display);
  };

  const purify = DOMPurify();
  purify.addHook("afterSanitizeAttributes", (node) => {
    if (node.namespaceURI === "http://www.w3.org/1998/Math/MathML") {
      node.removeAttribute("href"); // MathML links are never needed: nothing to follow
    } else if (node.nodeName === "A") {
      const href = node.getAttribute("href");
      if (href === null || !SAFE_LINK.test(normalise(href))) node.removeAttribute("href");
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    } else if (node.nodeName === "IMG") {
      if (!imageAllowed(node.getAttribute("src") ?? "", allowedImageHosts)) node.removeAttribute("src");
      node.setAttribute("referrerpolicy", "no-referrer");
      node.setAttribute("loading", "lazy");
    } else if (node.nodeName === "BUTTON") {
      node.setAttribute("type", "button");
    }
  });
  const config = {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    // Only links and images hold addresses: every other value is plain (DOMPurify would
    // otherwise hold `display="block"` or `start="3"` to ALLOWED_URI_REGEXP and drop them).
    ADD_URI_SAFE_ATTR: ALLOWED_ATTR.filter((name) => name !== "href" && name !== "src"),
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
    RETURN_DOM_FRAGMENT: true,
  };

  const render = (/** @type {HTMLElement} */ target, /** @type {string} */ text) => {
    waitingForMath = false;
    const fragment = purify.sanitize(markdown.render(text.replace(LINE_BREAK, "\n")), config);
    target.replaceChildren(fragment);
    shown.set(target, text);
    const blocks = target.querySelectorAll("pre code");
    if (blocks.length) highlight(blocks, purify, config);
    if (waitingForMath) {
      loadKatex().then(() => {
        if (target.isConnected && shown.get(target) === text) render(target, text);
      }, () => {}); // without KaTeX, TeX stays shown as written
    }
  };
  return render;
}

/** @type {any} KaTeX, once loaded */
let katex = null;
/** @type {Map<string, string>} typeset formulas: an answer is drawn again on every frame
 * while it streams, and each of its formulas was typeset anew every time */
const typesetFormulas = new Map();
const TYPESET_KEPT = 500;

/** A formula as MathML (or as its source, when KaTeX cannot read it), typeset once. */
function typeset(tex, markup, display) {
  const key = `${display ? "D" : "I"}${tex}`;
  let html = typesetFormulas.get(key);
  if (html === undefined) {
    try {
      const mathml = katex.renderToString(tex, { ...KATEX_OPTIONS, displayMode: display })
        .replace(/<annotation encoding="application\/x-tex">[\s\S]*?<\/annotation>/g, "")
        .replace(/<\/?semantics>/g, "");
      html = display ? `<span class="katex-display">${mathml}</span>` : mathml;
    } catch {
      html = `<code class="tex-source">${escape(markup)}</code>`; // TeX KaTeX cannot read
    }
    if (typesetFormulas.size >= TYPESET_KEPT) typesetFormulas.clear();
    typesetFormulas.set(key, html);
  }
  return html;
}
/** @type {Promise<any> | null} */
let katexLoading = null;

function loadKatex() {
  katexLoading ??= import(new URL("katex.mjs", VENDOR).href).then((module) => (katex = module.default));
  return katexLoading;
}

/** Longest code highlighted: in a named language, and in one highlight.js must guess. */
const HIGHLIGHT_MAX = 20_000;
const GUESS_MAX = 5_000;

/** @type {Promise<any> | null} highlight.js, loaded the first time an answer has code */
let highlighter = null;

/**
 * Colours code blocks with highlight.js, which is loaded only once an answer has code. Its
 * output (spans with classes around escaped text) is sanitised like everything else.
 * @param {NodeListOf<Element>} blocks
 */
function highlight(blocks, purify, config) {
  highlighter ??= import(new URL("highlight.mjs", VENDOR).href).then((module) => module.default);
  highlighter.then((hljs) => {
    for (const block of blocks) {
      if (!block.isConnected || block.classList.contains("hljs")) continue;
      const language = [...block.classList].find((c) => c.startsWith("language-"))?.slice(9);
      const text = block.textContent ?? "";
      const named = language && hljs.getLanguage(language);
      // Bounded: a grammar's patterns are not all linear, and guessing runs every grammar.
      if (text.length > (named ? HIGHLIGHT_MAX : GUESS_MAX)) continue;
      const result = named
        ? hljs.highlight(text, { language, ignoreIllegals: true })
        : hljs.highlightAuto(text);
      block.replaceChildren(purify.sanitize(result.value, config));
      block.classList.add("hljs");
    }
  }, () => {}); // without highlighting, code is still shown, plain
}

/** The URL as a browser would read it: entities, controls and whitespace taken out. */
function normalise(url) {
  let text = String(url);
  try {
    text = decodeURIComponent(text);
  } catch {
    // a malformed escape: judge the raw text
  }
  return text.replace(/[\u0000-\u0020\u007f-\u009f\u200b-\u200f\u2028\u2029\ufeff]/g, "");
}

function imageAllowed(src, hosts) {
  if (!hosts.size) return false;
  try {
    const url = new URL(src);
    return url.protocol === "https:" && hosts.has(url.hostname.toLowerCase());
  } catch {
    return false;
  }
}

function escape(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
