// Files attached to the next message: read as Base64, within a budget, shown as chips.

/** @typedef {{name: string, mime: string, data: string}} Attachment */

export class AttachmentTray {
  /** @type {Attachment[]} */
  #files = [];
  #list;
  #limit;
  #alert;

  /**
   * @param {ShadowRoot} root  holding `.files` (the chips), `.file-input` and `.attach`
   * @param {{limit: () => number, alert: (text: string) => void}} options  `alert("")` clears
   */
  constructor(root, { limit, alert }) {
    this.#list = /** @type {HTMLElement} */ (root.querySelector(".files"));
    this.#limit = limit;
    this.#alert = alert;
    const input = /** @type {HTMLInputElement} */ (root.querySelector(".file-input"));
    root.querySelector(".attach")?.addEventListener("click", () => input.click());
    input.addEventListener("change", () => {
      this.add([...(input.files ?? [])]);
      input.value = "";
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
    for (const file of chosen) {
      if (total + file.size > limit) {
        const room = file.size > limit ? "" : " with the files already attached";
        this.#alert(`“${file.name}” is ${formatBytes(file.size)}: a message can carry ${formatBytes(limit)} of files${room}.`);
        continue;
      }
      total += file.size;
      this.#files.push({ name: file.name, mime: file.type || guessType(file.name), data: await readBase64(file) });
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
        remove.setAttribute("aria-label", `Remove ${file.name}`);
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
