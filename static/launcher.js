// `mode="launcher"`: a floating button opens the chat as a panel; "Close chat" and Escape
// close it. Whether it was open survives a reload (in the page's localStorage). Nothing
// heavy loads until it is first opened (`onOpen`).

export class Launcher {
  #host;
  #button;
  #message;
  #key;
  #onOpen;

  /**
   * @param {HTMLElement} host  the element: it carries the `open` attribute
   * @param {{launcher: HTMLButtonElement, close: HTMLButtonElement, message: HTMLElement, chat: HTMLElement}} parts
   * @param {string} prefix  the storage prefix: the key is `<prefix>:launcher-open`
   * @param {() => void} onOpen  called each time the panel opens
   */
  constructor(host, { launcher, close, message, chat }, prefix, onOpen = () => {}) {
    this.#host = host;
    this.#onOpen = onOpen;
    this.#button = launcher;
    this.#message = message;
    this.#key = `${prefix}:launcher-open`;
    launcher.hidden = false;
    close.hidden = false;
    launcher.addEventListener("click", () => this.toggle(true));
    close.addEventListener("click", () => this.toggle(false));
    chat.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.isOpen && !event.defaultPrevented) this.toggle(false);
    });
    this.toggle(this.#remembered(), false);
  }

  get isOpen() {
    return this.#host.hasAttribute("open");
  }

  /** Opens or closes the panel; `focus` moves the focus to the composer or the button. */
  toggle(open, focus = true) {
    this.#host.toggleAttribute("open", open);
    this.#button.setAttribute("aria-expanded", String(open));
    this.#button.hidden = open;
    try {
      localStorage.setItem(this.#key, open ? "1" : "0");
    } catch {
      // a full or blocked storage only forgets whether the panel was open
    }
    if (focus) (open ? this.#message : this.#button).focus();
    if (open) this.#onOpen();
  }

  #remembered() {
    try {
      return localStorage.getItem(this.#key) === "1";
    } catch {
      return false;
    }
  }
}
