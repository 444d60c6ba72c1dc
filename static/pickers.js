// The model and thinking-level pickers in the header, and the "Options" menu that holds
// them on a narrow widget (so the title keeps the room).

/** @typedef {import("./client.js").SessionState} SessionState */

/**
 * Shows the session's model and thinking level; the model list is rebuilt only when the
 * offered models change.
 * @param {HTMLSelectElement} model @param {HTMLSelectElement} thinking @param {SessionState} state
 */
export function showChoices(model, thinking, state) {
  thinking.value = state.thinking;
  const offered = state.models.length ? state.models : [{ id: state.model || "default" }];
  const signature = offered.map((m) => m.id).join("\n");
  if (model.dataset.offered !== signature) {
    model.dataset.offered = signature;
    model.replaceChildren(...modelOptions(offered));
  }
  model.value = state.model || offered[0].id;
}

/**
 * The model picker's options, grouped by provider when the server has several: the group is
 * the provider, each option the model's own name.
 * @param {{id: string, provider?: string}[]} offered
 */
function modelOptions(offered) {
  const groups = new Map();
  for (const { id, provider } of offered) {
    if (!groups.has(provider)) groups.set(provider, []);
    const name = provider && id.startsWith(`${provider}/`) ? id.slice(provider.length + 1) : id;
    groups.get(provider).push(new Option(name, id));
  }
  if (groups.size === 1 && groups.has(undefined)) return groups.get(undefined);
  return [...groups].map(([provider, options]) => {
    const group = document.createElement("optgroup");
    group.label = provider ?? "other";
    group.append(...options);
    return group;
  });
}

/**
 * "Options" opens and closes the menu of pickers; Escape closes it first (then, again, the
 * launcher).
 * @param {HTMLElement} options  the button @param {HTMLElement} choices  the menu
 * @param {HTMLElement} first  what takes the focus when it opens
 */
export function wireOptionsMenu(options, choices, first) {
  const show = (/** @type {boolean} */ open) => {
    choices.classList.toggle("open", open);
    options.setAttribute("aria-expanded", String(open));
  };
  options.addEventListener("click", () => {
    const open = !choices.classList.contains("open");
    show(open);
    if (open) first.focus();
  });
  choices.addEventListener("keydown", (/** @type {KeyboardEvent} */ event) => {
    if (event.key === "Escape" && choices.classList.contains("open")) {
      event.preventDefault();
      show(false);
      options.focus();
    }
  });
}
