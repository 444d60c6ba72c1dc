// "Share": the dialog that makes a read-only link to a conversation as it is now (or gives
// the same link again when nothing changed since), copies it, and stops it. Loaded when a
// person first presses "Share": a visit that never shares never downloads it.

/** @typedef {(op: string, args: Record<string, unknown>) => Promise<any>} Call */

export class ShareDialog {
  #dialog;
  #status;
  #link;
  #copy;
  #stop;
  #call;
  #t;
  #conversationId = "";

  /**
   * @param {ShadowRoot} root
   * @param {{call: Call, t: import("./strings.js").Translate}} options  `call` rejects with
   *   the session's refusal, said here, in the dialog the person looks at
   */
  constructor(root, { call, t }) {
    const $ = (selector) => /** @type {any} */ (root.querySelector(selector));
    this.#dialog = /** @type {HTMLDialogElement} */ ($(".share-dialog"));
    this.#status = $(".share-status");
    this.#link = /** @type {HTMLInputElement} */ ($(".share-link"));
    this.#copy = $(".copy-link");
    this.#stop = $(".stop-sharing");
    this.#call = call;
    this.#t = t;
    this.#copy.addEventListener("click", () => this.#copyLink());
    this.#stop.addEventListener("click", () => this.#stopSharing());
    $(".close-share").addEventListener("click", () => this.#dialog.close());
  }

  /** Shows the dialog for `conversationId` and makes (or finds) its link. */
  async open(/** @type {string} */ conversationId, /** @type {import("./strings.js").Translate} */ t) {
    this.#t = t;
    this.#conversationId = conversationId;
    this.#showLink(null);
    this.#status.textContent = t("share.making");
    if (!this.#dialog.open) this.#dialog.showModal();
    try {
      const { fragment, expires } = await this.#call("share", { conversationId });
      if (this.#conversationId !== conversationId) return; // another one was asked for since
      this.#showLink(`${location.href.replace(/#.*$/, "")}#${fragment}`);
      const date = new Intl.DateTimeFormat(document.documentElement.lang || undefined, { dateStyle: "long" })
        .format(new Date(expires * 1000));
      this.#status.textContent = t("share.note", { date });
      this.#link.focus();
      this.#link.select();
    } catch (error) {
      this.#status.textContent = this.#said(error);
    }
  }

  /** @param {string | null} link  null: none (yet, or any more) */
  #showLink(link) {
    this.#link.value = link ?? "";
    for (const node of [this.#link, this.#copy, this.#stop]) node.hidden = link === null;
  }

  async #copyLink() {
    const link = this.#link.value;
    try {
      await navigator.clipboard.writeText(link);
    } catch {
      this.#link.select(); // no clipboard access (an insecure page, a denied permission)
      document.execCommand("copy");
    }
    this.#status.textContent = this.#t("share.copied");
  }

  async #stopSharing() {
    const conversationId = this.#conversationId;
    this.#stop.disabled = true;
    try {
      await this.#call("stopSharing", { conversationId });
      this.#showLink(null);
      this.#status.textContent = this.#t("share.stopped");
      /** @type {HTMLElement} */ (this.#dialog.querySelector(".close-share")).focus();
    } catch (error) {
      this.#status.textContent = this.#said(error);
    } finally {
      this.#stop.disabled = false;
    }
  }

  /** @param {any} error */
  #said(error) {
    return this.#t.notice({ message: error.message, code: error.code ?? "", params: error.params ?? {} });
  }
}
