// The composer: the message field, Send (Enter) or Stop, dictation, and the files attached to
// the next message. It hands what a person wrote to `send`; the element decides what that does.

import { AttachmentTray } from "./attachments.js";
import { Dictation } from "./dictation.js";

export class Composer {
  #field;
  #send;
  #stop;
  #tray;
  #onSend;
  #dictation;

  /**
   * @param {ShadowRoot} root  holding the `.composer` form, its textarea, `.send` and `.stop`
   * @param {{t: import("./strings.js").Lookup, limit: () => number,
   *   alert: (said: string | import("./strings.js").Notice) => void, send: (text: string, attachments: object[]) => void,
   *   stop: () => void, lang: () => string,
   *   prepare?: (file: File) => Promise<File>}} options  `alert("")` clears; `lang`: the
   *   language dictation listens for; `prepare`: a file made ready (./prepare-file.js)
   */
  constructor(root, { t, limit, alert, send, stop, lang, prepare }) {
    const form = /** @type {HTMLFormElement} */ (root.querySelector(".composer"));
    this.#field = /** @type {HTMLTextAreaElement} */ (form.querySelector("textarea"));
    this.#send = /** @type {HTMLButtonElement} */ (form.querySelector(".send"));
    this.#stop = /** @type {HTMLButtonElement} */ (form.querySelector(".stop"));
    this.#tray = new AttachmentTray(root, { t, limit, alert, prepare });
    const dictate = /** @type {HTMLButtonElement} */ (form.querySelector(".dictate"));
    this.#dictation = new Dictation(dictate, this.#field, { t, alert, lang });
    this.#onSend = send;
    this.#send.disabled = true; // until the session is ready
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#submit();
    });
    this.#field.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.#submit();
      }
    });
    this.#stop.addEventListener("click", stop);
    this.#field.addEventListener("input", () => this.#showSend());
  }

  #busy = false;

  /** While an answer is written, Send shows beside Stop once there is something to queue. */
  #showSend() {
    this.#send.hidden = this.#busy && !this.#field.value.trim() && !this.#tray.count;
  }

  /** The message field, for the launcher to focus. */
  get field() {
    return this.#field;
  }

  /**
   * Send while online; Stop while an answer is written, and Send beside it once something is
   * written (it waits, queued, for the answer to settle).
   */
  show({ busy, online }) {
    this.#busy = busy;
    this.#send.disabled = !online;
    this.#showSend();
    this.#stop.hidden = !busy;
  }

  /** Puts `text` in the field to be edited and sent (a fork's question). */
  put(text) {
    this.#field.value = text;
    this.#field.focus();
  }

  #submit() {
    const text = this.#field.value.trim();
    if ((!text && !this.#tray.count) || this.#send.disabled) return;
    this.#dictation.stop();
    const attachments = this.#tray.take();
    this.#field.value = "";
    this.#showSend();
    this.#onSend(text, attachments);
  }
}
