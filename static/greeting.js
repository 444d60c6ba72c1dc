// What an empty chat shows: the suggestions as buttons, and the three newest conversations.

/** @typedef {import("./client.js").HistoryEntry} HistoryEntry */

/**
 * Redraws the suggestions and the recent list, each only when what it shows changed.
 * @param {{suggestions: HTMLElement, recent: HTMLElement}} parts
 * @param {{suggestions: string[], history: HistoryEntry[], liveId: string, untitled: string}} what
 */
export function showGreeting({ suggestions, recent }, { suggestions: offered, history, liveId, untitled }) {
  if (suggestions.dataset.offered !== offered.join("\n")) {
    suggestions.dataset.offered = offered.join("\n");
    suggestions.replaceChildren(...offered.map((text) => button(text)));
  }
  suggestions.hidden = offered.length === 0;
  const list = /** @type {HTMLElement} */ (recent.querySelector("ul"));
  const newest = history.filter((entry) => entry.id !== liveId).slice(0, 3);
  const signature = newest.map((entry) => `${entry.id}\u0000${entry.title}`).join("\u0001");
  if (list.dataset.signature !== signature) {
    list.dataset.signature = signature;
    list.replaceChildren(
      ...newest.map((entry) => {
        const item = document.createElement("li");
        const open = button(entry.title || untitled);
        open.dataset.id = entry.id;
        item.append(open);
        return item;
      }),
    );
  }
  recent.hidden = newest.length === 0;
}

function button(text) {
  const node = document.createElement("button");
  node.type = "button";
  node.textContent = text;
  return node;
}

/**
 * A suggestion sends its text; a recent conversation opens; "All conversations" shows them all.
 * @param {{suggestions: HTMLElement, recent: HTMLElement}} parts
 * @param {{open: (id: string) => void, send: (text: string) => void, showAll: () => void}} actions
 */
export function wireGreeting({ suggestions, recent }, { open, send, showAll }) {
  recent.querySelector(".all")?.addEventListener("click", showAll);
  recent.addEventListener("click", (event) => {
    const row = /** @type {HTMLElement} */ (event.target).closest("button[data-id]");
    if (row) open(row.getAttribute("data-id") ?? "");
  });
  suggestions.addEventListener("click", (event) => {
    const choice = /** @type {HTMLElement} */ (event.target).closest("button");
    if (choice?.textContent) send(choice.textContent);
  });
}
