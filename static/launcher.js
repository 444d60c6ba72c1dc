// `mode="launcher"`: a floating button opens the chat as a panel; "Close chat" and Escape
// close it. Whether it was open survives a reload (in the page's localStorage). Nothing
// heavy loads until it is first opened (`onOpen`).

export class Launcher {
  #host;
  #button;
  #message;
  #key;
  #onOpen;
  /** @type {AbortController | null} while open: following the visual viewport */
  #following = null;

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
      // Remembered only where the widget may keep anything (consent="ask" not yet given: no).
      if (!(/** @type {any} */ (this.#host).consentPending)) localStorage.setItem(this.#key, open ? "1" : "0");
    } catch {
      // a full or blocked storage only forgets whether the panel was open
    }
    this.#followViewport(open);
    if (focus) (open ? this.#message : this.#button).focus();
    if (open) this.#onOpen();
  }

  /**
   * While open, the panel stays within the visual viewport: on a phone, the on-screen
   * keyboard shrinks it, and the composer must stay above the keyboard (CSS reads the two
   * properties set here).
   * @param {boolean} open
   */
  #followViewport(open) {
    this.#following?.abort();
    this.#following = null;
    const viewport = window.visualViewport;
    if (!open || !viewport) return;
    this.#following = new AbortController();
    const place = () => {
      const covered = Math.max(0, window.innerHeight - viewport.offsetTop - viewport.height);
      this.#host.style.setProperty("--ck-keyboard", `${Math.round(covered)}px`);
      this.#host.style.setProperty("--ck-visible", `${Math.round(viewport.height)}px`);
    };
    viewport.addEventListener("resize", place, { signal: this.#following.signal });
    viewport.addEventListener("scroll", place, { signal: this.#following.signal });
    place();
  }

  #remembered() {
    try {
      return localStorage.getItem(this.#key) === "1";
    } catch {
      return false;
    }
  }
}
