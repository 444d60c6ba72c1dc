// The header's "Context" meter: how much of the model's context window the conversation
// fills, from the tokens the upstream reported (Python counts them, `widget/context_use.py`)
// and, while an answer streams, an estimate of its text. Past 80 % it reads "Context nearly
// full", and a hint says what to do about it. Shown only for a model whose window is known
// (the providers file's `[providers.NAME.context]`; the demo model's is 8192).

/** Past this share (%) a conversation is nearly full: answers start to lose its beginning. */
const NEARLY_FULL = 80;
/** The estimate for text the upstream has not counted yet, as Python makes it. */
const CHARS_PER_TOKEN = 4;

/**
 * @param {{meter: HTMLElement, contextFull: HTMLElement}} parts
 * @param {import("./client.js").SessionState} state
 * @param {import("./client.js").Message | null} draft  the answer streaming now
 * @param {import("./strings.js").Lookup} t
 */
export function showContext({ meter, contextFull }, state, draft, t) {
  const model = state.models.find((offered) => offered.id === state.model) ?? (state.model ? null : state.models[0]);
  const window = Number(model?.context_window);
  if (!(window > 0) || typeof state.context !== "number") {
    meter.hidden = contextFull.hidden = true;
    return;
  }
  const tokens = state.context + Math.ceil((draft?.content?.length ?? 0) / CHARS_PER_TOKEN);
  const percent = Math.min(100, Math.round((tokens / window) * 100));
  const nearlyFull = percent > NEARLY_FULL;
  const used = t("context.used", { percent, tokens, window });
  meter.hidden = false;
  meter.setAttribute("aria-valuenow", String(percent));
  meter.setAttribute("aria-valuetext", nearlyFull ? `${t("context.full")}: ${used}` : used);
  meter.title = used;
  meter.style.setProperty("--ck-context", `${percent}%`);
  meter.classList.toggle("full", nearlyFull);
  contextFull.hidden = !nearlyFull;
}
