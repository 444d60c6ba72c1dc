// Opening a shared link (`#chatkeep-share=ID.KEY`, taken out of the address before anything
// boots: ./sync-link.js): the conversation is fetched, opened with the link's key
// (./share-client.js) and drawn read-only, as the widget draws any answer, without waiting for
// Python. It is a stranger's: drawn through the same sanitising renderer, it can run no tool,
// reach no model and change no history; once Python runs it is checked as an import is
// (`readShared`), and only "Continue this conversation" copies it into this browser's history.

import { open as openShare } from "./share-client.js";
import { readConversation } from "./stored.js";
import { MessageActionEvent, Transcript } from "./transcript.js";
import { uiDrawer } from "./ui-actions.js";

/**
 * @param {ShadowRoot} root
 * @param {{link: string, endpoint: string, headers: Record<string, string>,
 *   client: import("./client.js").WidgetClient, t: () => import("./strings.js").Translate,
 *   markdown: () => Promise<(target: HTMLElement, text: string) => void>, imageHosts?: string[],
 *   announce: (text: string) => void, closed: () => void}} options
 */
export async function openShared(root, { link, endpoint, headers, client, t, markdown, imageHosts = [], announce, closed }) {
  const page = /** @type {HTMLElement} */ (root.querySelector(".shared-page"));
  const chat = /** @type {HTMLElement} */ (page.parentElement);
  const $ = (selector) => /** @type {HTMLElement} */ (page.querySelector(selector));
  const [status, log, proceed, heading] = [$(".shared-status"), $(".transcript"), $(".continue"), $("h2")];
  const close = () => {
    page.hidden = true;
    chat.classList.remove("shared-open");
    log.replaceChildren();
    closed();
  };
  $(".back").addEventListener("click", close, { once: true });
  page.hidden = false;
  $(".shared-note").hidden = false;
  chat.classList.add("shared-open");
  $(".back").focus();
  /** @param {any} error */
  const refuse = (error) => {
    status.textContent = t().notice({ message: error.message, code: error.code ?? "", params: error.params ?? {} });
    for (const node of [log, $(".shared-note")]) node.hidden = true; // the sentence, and nothing else
    proceed.hidden = true;
  };
  /** @type {string} */
  let text;
  try {
    text = await openShare(endpoint, link, headers);
  } catch (error) {
    refuse(error); // gone, stopped, tampered or a wrong key: one sentence
    return;
  }
  const shown = readConversation(text);
  if (!shown?.messages.length) {
    refuse({ message: "", code: "share_gone" });
    return;
  }
  if (shown.title) heading.textContent = shown.title;
  const render = markdown();
  let draw = (/** @type {HTMLElement} */ target, /** @type {string} */ words) => void (target.textContent = words);
  render.then((markdownDraw) => (draw = markdownDraw));
  const transcript = new Transcript(log, (target, words) => draw(target, words), () => {}, (key, values) => t()(key, values),
    (said) => t().notice(said), render);
  log.addEventListener(MessageActionEvent.type, (event) => {
    const pressed = /** @type {MessageActionEvent} */ (event);
    if (pressed.action === "copy-code") navigator.clipboard?.writeText(pressed.text).catch(() => {});
  });
  transcript.drawUi = uiDrawer({ t, markdown, imageHosts, act: null }); // its cards and tables, inert
  transcript.messagesChanged(shown.messages, 0);
  log.hidden = false;
  status.textContent = "";
  // Python checks it as an import is; what it refuses is not shown, and cannot be continued.
  try {
    await client.call("readShared", { text });
  } catch (error) {
    refuse(error);
    return;
  }
  proceed.hidden = false;
  proceed.addEventListener("click", async () => {
    proceed.setAttribute("disabled", "");
    try {
      await client.call("continueShared", { text });
      close();
      announce(t()("shared.continued"));
    } catch (error) {
      refuse(error);
    } finally {
      proceed.removeAttribute("disabled");
    }
  }, { once: true });
}
