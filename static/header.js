// The header and the status lines: the title, the model and thinking-level pickers (behind
// "Options" on a narrow widget, so the title keeps the room), offline and usage.

/** @typedef {import("./client.js").SessionState} SessionState */

/**
 * Everything `meta` holds, shown.
 * @param {{title: HTMLElement, model: HTMLSelectElement, thinking: HTMLSelectElement,
 *   offline: HTMLElement, usage: HTMLElement, log: HTMLElement, allowed: HTMLElement}} parts
 * @param {SessionState} state @param {import("./strings.js").Lookup} t
 */
export function showMeta({ title, model, thinking, offline, usage, log, allowed }, state, t) {
  title.textContent = state.title || t("title.new");
  offline.hidden = navigator.onLine;
  // While an answer is written, a person's messages offer no edit, fork or retry.
  log.toggleAttribute("data-busy", state.busy);
  showChoices(model, thinking, state);
  usage.textContent = state.usage
    ? t("usage", { in: state.usage.prompt_tokens ?? 0, out: state.usage.completion_tokens ?? 0 })
    : "";
  showAllowed(allowed, state.allowed ?? [], t);
}

/**
 * The tools allowed for this conversation ("Allow for this conversation"), in the menu, each
 * with the button that takes it back ("Stop allowing …": it asks again).
 * @param {HTMLElement} section @param {string[]} names @param {import("./strings.js").Lookup} t
 */
function showAllowed(section, names, t) {
  const signature = names.join("\n");
  if (section.dataset.shown === signature && section.dataset.lang === t("allowed.heading")) return;
  section.dataset.shown = signature;
  section.dataset.lang = t("allowed.heading");
  section.hidden = names.length === 0;
  /** @type {HTMLElement} */ (section.querySelector("ul")).replaceChildren(...names.map((name) => {
    const item = document.createElement("li");
    const code = document.createElement("code");
    code.textContent = name;
    const revoke = document.createElement("button");
    revoke.type = "button";
    revoke.dataset.tool = name;
    revoke.textContent = t("allowed.revoke", { name });
    item.append(code, revoke);
    return item;
  }));
}

/**
 * Shows the session's model and thinking level; the model list is rebuilt only when the
 * offered models change.
 * @param {HTMLSelectElement} model @param {HTMLSelectElement} thinking @param {SessionState} state
 */
function showChoices(model, thinking, state) {
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
