// Files attached to the next message (chosen, dropped on the chat or pasted into the
// composer): made ready (images downscaled, PDFs as their text), read as Base64, within a
// budget, shown as chips.

import { downscaled } from "./downscale.js";

/** @typedef {(file: File) => Promise<File>} Prepare */

/** @typedef {{name: string, mime: string, data: string}} Attachment */

export class AttachmentTray {
  /** @type {Attachment[]} */
  #files = [];
  #list;
  #limit;
  #alert;
  #t;
  /** @type {Prepare} */
  #prepare;

  /**
   * @param {ShadowRoot} root  holding `.files` (the chips), `.file-input` and `.attach`
   * @param {{limit: () => number, alert: (said: string | import("./strings.js").Notice) => void,
   *   t: import("./strings.js").Lookup, prepare?: Prepare}} options  `alert("")` clears
   */
  constructor(root, { limit, alert, t, prepare = downscaled }) {
    this.#prepare = prepare;
    this.#list = /** @type {HTMLElement} */ (root.querySelector(".files"));
    this.#limit = limit;
    this.#alert = alert;
    this.#t = t;
    const input = /** @type {HTMLInputElement} */ (root.querySelector(".file-input"));
    root.querySelector(".attach")?.addEventListener("click", () => input.click());
    input.addEventListener("change", () => {
      this.add([...(input.files ?? [])]);
      input.value = "";
    });
    // Dropped on the chat, or pasted into the message field: as if chosen with the picker.
    const chat = /** @type {HTMLElement} */ (root.querySelector(".chat"));
    chat.addEventListener("dragover", (event) => {
      if (!event.dataTransfer?.types.includes("Files")) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
    });
    chat.addEventListener("drop", (event) => {
      const files = [...(event.dataTransfer?.files ?? [])];
      if (!files.length) return;
      event.preventDefault();
      this.add(files);
    });
    root.querySelector(".composer textarea")?.addEventListener("paste", (event) => {
      const files = [...(/** @type {ClipboardEvent} */ (event).clipboardData?.files ?? [])];
      if (!files.length) return; // text is pasted as text
      event.preventDefault();
      this.add(files);
    });
    this.#list.addEventListener("click", (event) => {
      const remove = /** @type {HTMLElement} */ (event.target).closest("button[data-file]");
      if (!remove) return;
      this.#files.splice(Number(remove.getAttribute("data-file")), 1);
      this.#draw();
    });
  }

  get count() {
    return this.#files.length;
  }

  /** The files for the message being sent; the tray is empty again. */
  take() {
    const files = this.#files;
    this.#files = [];
    this.#draw();
    return files;
  }

  /** Adds files; one over the budget is refused with an alert before anything is sent. */
  async add(chosen) {
    this.#alert("");
    const limit = this.#limit();
    let total = this.#files.reduce((sum, file) => sum + Math.floor((file.data.length * 3) / 4), 0);
    for (const picked of chosen) {
      /** @type {File} */
      let file;
      try {
        file = await this.#prepare(picked);
      } catch (error) { // a PDF without text: said, naming it
        this.#alert({ message: error.message, code: error.code ?? "", params: error.params ?? {} });
        continue;
      }
      const mime = file.type || guessType(file.name);
      if (!readable(mime)) { // the model would get its name only
        this.#alert(this.#t("file.unsupported", { file: file.name }));
        continue;
      }
      if (total + file.size > limit) {
        const room = file.size > limit ? "" : this.#t("file.room");
        this.#alert(this.#t("file.too-large", {
          file: file.name, size: formatBytes(file.size), limit: formatBytes(limit), room,
        }));
        continue;
      }
      total += file.size;
      const data = await readBase64(file).catch(() => null);
      if (data === null) {
        this.#alert(this.#t("file.unreadable", { file: file.name }));
        continue;
      }
      this.#files.push({ name: file.name, mime, data });
    }
    this.#draw();
  }

  #draw() {
    this.#list.replaceChildren(
      ...this.#files.map((file, index) => {
        const item = document.createElement("li");
        const remove = document.createElement("button");
        remove.type = "button";
        remove.dataset.file = String(index);
        remove.textContent = "×";
        remove.setAttribute("aria-label", this.#t("file.remove", { file: file.name }));
        item.append(`📎 ${file.name}`, remove);
        return item;
      }),
    );
    this.#list.hidden = this.#files.length === 0;
  }
}

export function readBase64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(new Error(`“${file.name}” could not be read.`));
    reader.readAsDataURL(file);
  });
}

/** What reaches the model as what it is: images, text (a PDF has become its text by now). */
function readable(/** @type {string} */ mime) {
  return /^(image|text)\//.test(mime) || ["application/json", "application/xml"].includes(mime);
}

export function guessType(name) {
  const extension = name.split(".").pop()?.toLowerCase() ?? "";
  const known = { md: "text/markdown", csv: "text/csv", json: "application/json", py: "text/x-python",
    ts: "text/plain", yaml: "text/yaml", yml: "text/yaml" };
  return known[extension] ?? "application/octet-stream";
}

export function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
