// What the widget tells a person outside the conversation: an alert (also the
// `chatkeep-error` event for the host), and short announcements for screen readers.

export class Notices {
  #alert;
  #announce;
  #host;
  #translate;
  #timer = 0;

  /**
   * @param {HTMLElement} host  the element, where `chatkeep-error` is dispatched
   * @param {ShadowRoot} root  holding `.alert` and `.announce`
   * @param {(said: import("./strings.js").Notice | string) => string} translate  what Python
   *   or the server said (or the widget's own words), in the widget's language
   */
  constructor(host, root, translate) {
    this.#host = host;
    this.#alert = /** @type {HTMLElement} */ (root.querySelector(".alert"));
    this.#announce = /** @type {HTMLElement} */ (root.querySelector(".announce"));
    this.#translate = translate;
  }

  /**
   * Shows what was said as an alert and tells the host page.
   * @param {import("./strings.js").Notice | string} said
   */
  alert(said) {
    const shown = this.#translate(said);
    this.#alert.textContent = shown;
    this.#alert.hidden = false;
    this.#host.dispatchEvent(new CustomEvent("chatkeep-error", { detail: { message: shown }, bubbles: true, composed: true }));
  }

  clear() {
    this.#alert.hidden = true;
    this.#alert.textContent = "";
  }

  /** A short message for screen readers (and a glance), gone after a moment. */
  announce(text) {
    this.#announce.textContent = text;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => (this.#announce.textContent = ""), 2000);
  }
}
