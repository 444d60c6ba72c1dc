// Carrying out what a person pressed under a message (the transcript raises a
// `MessageActionEvent`): copy, read aloud, edit in place, fork, retry, show another version,
// or rate.

import { toggleReading } from "./read-aloud.js";

/** @typedef {import("./transcript.js").MessageActionEvent} MessageActionEvent */

/**
 * @param {MessageActionEvent} pressed
 * @param {{client: import("./client.js").WidgetClient,
 *   act: (op: string, args: Record<string, unknown>) => Promise<any>,
 *   transcript: import("./transcript.js").Transcript,
 *   composer: import("./composer.js").Composer,
 *   notices: import("./notices.js").Notices, t: import("./strings.js").Lookup,
 *   announce: (type: string, detail: object) => void}} widget
 */
export async function carryOut({ action, index, version, text, rating, source }, { client, act, transcript, composer, notices, t, announce }) {
  const content = client.state.messages[index]?.content ?? "";
  if (action === "copy" || action === "copy-code") {
    navigator.clipboard?.writeText(action === "copy" ? content : text).then(
      () => {
        if (action === "copy") notices.announce(t("copied"));
        source?.classList.add("copied");
        setTimeout(() => source?.classList.remove("copied"), 1500);
      },
      () => notices.alert(t("copy.denied")),
    );
  } else if (action === "read-aloud" && source) {
    // What the person sees, not the Markdown: the answer's rendered text.
    const text = source.closest("article")?.querySelector(".body")?.textContent ?? content;
    const host = /** @type {ShadowRoot} */ (source.getRootNode()).host;
    const lang = host?.getAttribute("lang") || document.documentElement.lang || "en";
    toggleReading(source, text, lang, { read: t("read.aloud"), stop: t("read.stop") });
  } else if (action === "retry") {
    act("retry", { index });
  } else if (action === "version") {
    act("showVersion", { index, version });
  } else if (action === "edit" && !client.state.busy) {
    const edited = await transcript.editInPlace(index, content, t("edit.field"));
    if (edited) act("edit", { index, text: edited });
  } else if (action === "feedback") {
    // Pressing the pressed one takes the rating back.
    const chosen = client.state.messages[index]?.feedback === rating ? null : rating;
    const conversationId = client.state.id;
    if (await act("setFeedback", { index, rating: chosen }) !== undefined) {
      announce("chatkeep-feedback", { conversationId, index, rating: chosen });
    }
  } else if (action === "fork") {
    const forked = await act("fork", { index });
    if (typeof forked === "string") composer.put(forked);
  }
}
