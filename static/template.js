// The element's shadow DOM, with every string marked by its key in the language tables.

const STYLESHEET = new URL("./chat-widget.css", import.meta.url).href;
export const THINKING_LEVELS = ["off", "low", "medium", "high"];

export const ICONS = {
  clock: '<svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="9"/><path d="M12 7v5l3 2"/></svg>',
  plus: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M12 5v14M5 12h14"/></svg>',
  back: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M15 5l-7 7 7 7"/></svg>',
  sliders: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 7h10M18 7h2M4 17h4M12 17h8"/><circle cx="16" cy="7" r="2"/><circle cx="10" cy="17" r="2"/></svg>',
  chat: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 5h16v11H9l-5 4z"/></svg>',
  close: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M6 6l12 12M18 6L6 18"/></svg>',
  download: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M12 4v11M7 10l5 5 5-5M5 20h14"/></svg>',
  mic: '<svg viewBox="0 0 24 24" aria-hidden="true"><rect x="9" y="3" width="6" height="11" rx="3"/><path d="M5 11a7 7 0 0014 0M12 18v3"/></svg>',
  pin: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M9 4h6l-1 6 4 4H6l4-4zM12 14v6"/></svg>',
  share: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M12 15V4M8 8l4-4 4 4M5 12v7h14v-7"/></svg>',
  clip: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M20 11.5l-7.8 7.8a5 5 0 01-7.1-7.1l8.5-8.5a3.3 3.3 0 014.7 4.7l-8.5 8.5a1.7 1.7 0 01-2.4-2.4l7.8-7.8"/></svg>',
};

// Every string is marked with its key in the language tables (static/i18n/): `data-t` for the
// text, `data-t-label` for the accessible name (and tooltip), `data-t-placeholder`.
export const TEMPLATE = `
<link rel="stylesheet" href="${STYLESHEET}">
<button type="button" class="launcher" part="launcher" data-t-label="open" aria-expanded="false" hidden>${ICONS.chat}</button>
<div class="chat" part="chat">
  <header part="header">
    <h2 class="title" dir="auto" data-t="title.new"></h2>
    <div class="context" role="meter" data-t-label="context.label" aria-valuemin="0" aria-valuemax="100" aria-valuenow="0" hidden><span></span></div>
    <button type="button" class="icon options" data-t-label="options" aria-expanded="false" aria-controls="choices">${ICONS.sliders}</button>
    <div class="choices" id="choices">
      <label class="pick"><span data-t="model"></span><select class="model" data-t-label="model"></select></label>
      <label class="pick"><span data-t="thinking"></span><select class="thinking" data-t-label="thinking">
        ${THINKING_LEVELS.map((level) => `<option value="${level}" data-t="thinking.${level}"></option>`).join("")}
      </select></label>
      <button type="button" class="icon download" data-t-label="download" hidden>${ICONS.download}</button>
      <section class="allowed" data-t-label="allowed.heading" hidden>
        <h3 data-t="allowed.heading"></h3>
        <ul role="list"></ul>
      </section>
    </div>
    <button type="button" class="icon share" data-t-label="share" hidden>${ICONS.share}</button>
    <button type="button" class="icon history-button" data-t-label="history">${ICONS.clock}</button>
    <button type="button" class="icon new" data-t-label="new">${ICONS.plus}</button>
    <button type="button" class="icon close" data-t-label="close" hidden>${ICONS.close}</button>
  </header>
  <div class="loading" role="progressbar" data-t-label="loading"><span></span></div>
  <div class="alert" role="alert" hidden></div>
  <p class="context-full" role="status" hidden><strong data-t="context.full"></strong> <span data-t="context.hint"></span></p>
  <div class="transcript" role="log" data-t-label="conversation" part="transcript">
    <div class="greeting">
      <p data-t="greeting"></p>
      <p class="consent" hidden><button type="button" data-t="consent.keep"></button></p>
      <div class="suggestions" hidden></div>
      <section class="recent" hidden>
        <h3 data-t="recent"></h3>
        <ul role="list" data-t-label="recent.list"></ul>
        <button type="button" class="all" data-t="recent.all"></button>
      </section>
    </div>
  </div>
  <button type="button" class="jump" part="jump" data-t="jump.latest" hidden></button>
  <ul class="queue" role="list" part="queue" data-t-label="queue.list" hidden></ul>
  <form class="composer" part="composer">
    <ul class="files" data-t-label="files" hidden></ul>
    <div class="row">
      <button type="button" class="icon attach" data-t-label="attach">${ICONS.clip}</button>
      <input type="file" class="file-input" multiple hidden accept="image/*,text/*,application/pdf,.pdf,.md,.json,.csv,.py,.js,.ts,.html,.css,.xml,.yaml,.yml">
      <textarea data-t-label="message" data-t-placeholder="message" rows="2"></textarea>
      <button type="button" class="icon dictate" data-t-label="dictate" aria-pressed="false" hidden>${ICONS.mic}</button>
      <button type="submit" class="send" data-t="send"></button>
      <button type="button" class="stop" data-t="stop" hidden></button>
    </div>
  </form>
  <p class="offline" role="status" data-t="offline" hidden></p>
  <p class="usage" aria-live="polite"></p>
  <p class="announce" aria-live="polite"></p>
  <section class="history-page" data-t-label="history" hidden>
    <header>
      <button type="button" class="icon back" data-t-label="back">${ICONS.back}</button>
      <h2 data-t="history"></h2>
      <input type="search" class="search" data-t-label="search" data-t-placeholder="search.placeholder">
    </header>
    <ul class="conversations" role="list" data-t-label="conversations"></ul>
    <p class="empty-history" data-t="history.empty"></p>
    <footer>
      <p class="status" role="status"></p>
      <button type="button" class="export" data-t="export"></button>
      <button type="button" class="import" data-t="import"></button>
      <input type="file" class="import-file" accept=".json,application/json" hidden>
    </footer>
  </section>
  <section class="shared-page" data-t-label="shared.heading" hidden>
    <header>
      <button type="button" class="icon back" data-t-label="shared.close">${ICONS.back}</button>
      <h2 dir="auto" data-t="shared.heading"></h2>
    </header>
    <p class="shared-note" data-t="shared.note"></p>
    <p class="shared-status" role="status" data-t="shared.opening"></p>
    <div class="transcript" role="log" data-t-label="shared.heading" hidden></div>
    <footer><button type="button" class="continue primary" data-t="shared.continue" hidden></button></footer>
  </section>
  <dialog class="share-dialog" aria-labelledby="share-heading">
    <h2 id="share-heading" data-t="share.heading"></h2>
    <p class="share-status" role="status"></p>
    <input class="share-link" readonly data-t-label="share.link" hidden>
    <div class="share-actions">
      <button type="button" class="copy-link primary" data-t="share.copy" hidden></button>
      <button type="button" class="stop-sharing" data-t="share.stop" hidden></button>
      <button type="button" class="close-share" data-t="share.close"></button>
    </div>
  </dialog>
</div>`;

/** Titles that differ from the accessible name (a tooltip says a little more). */
const TOOLTIPS = { options: "options.title", attach: "attach.title", download: "download.title", dictate: "dictate.title" };

/**
 * Puts the strings of `t` into everything marked in the template, written in the language's
 * direction (Arabic right to left) unless the page gave the element a `dir` of its own.
 * @param {ShadowRoot} root @param {import("./strings.js").Translate} t
 */
export function localize(root, t) {
  const dir = root.host.hasAttribute("dir") || t.dir === "ltr" ? "" : t.dir;
  for (const node of root.children) if (node instanceof HTMLElement && node.tagName !== "STYLE") node.dir = dir;
  for (const node of root.querySelectorAll("[data-t]")) node.textContent = t(node.getAttribute("data-t") ?? "");
  for (const node of root.querySelectorAll("[data-t-label]")) {
    const key = node.getAttribute("data-t-label") ?? "";
    node.setAttribute("aria-label", t(key));
    if (node.tagName === "BUTTON" || node.tagName === "SELECT") node.setAttribute("title", t(TOOLTIPS[key] ?? key));
  }
  for (const node of root.querySelectorAll("[data-t-placeholder]")) {
    node.setAttribute("placeholder", t(node.getAttribute("data-t-placeholder") ?? ""));
  }
}
