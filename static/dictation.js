// Dictation: the browser's speech recognition puts what a person says into the composer,
// where they can read and correct it before sending (it never sends by itself). The
// "Dictate" button shows only where the browser has speech recognition.

/** @typedef {import("./strings.js").Lookup} Lookup */

/** Errors that mean dictation cannot work here, and what to tell the person. */
const REFUSED = new Set(["not-allowed", "service-not-allowed"]);
const QUIET = new Set(["no-speech", "aborted"]);

export class Dictation {
  #button;
  #field;
  #options;
  /** @type {any} the recognition listening now, if any */
  #listening = null;

  /**
   * @param {HTMLButtonElement} button  the "Dictate" toggle @param {HTMLTextAreaElement} field
   * @param {{t: Lookup, alert: (text: string) => void, lang: () => string}} options
   *   `lang`: the language to recognise (the widget's, else the page's)
   */
  constructor(button, field, options) {
    this.#button = button;
    this.#field = field;
    this.#options = options;
    button.hidden = !recognitionClass();
    button.addEventListener("click", () => (this.#listening ? this.stop() : this.#start()));
  }

  /** Stops listening (before a message is sent: later words would land in the next one). */
  stop() {
    this.#listening?.stop();
  }

  #start() {
    const Recognition = recognitionClass();
    if (!Recognition) return;
    const recognition = new Recognition();
    recognition.lang = this.#options.lang();
    recognition.interimResults = true;
    recognition.continuous = true;
    const before = this.#field.value;
    const separator = before && !/\s$/.test(before) ? " " : "";
    recognition.onresult = (/** @type {any} */ event) => {
      let said = "";
      for (const result of event.results) said += result[0]?.transcript ?? "";
      this.#field.value = before + separator + said.trim();
      this.#field.dispatchEvent(new Event("input", { bubbles: true }));
    };
    recognition.onerror = (/** @type {any} */ event) => {
      if (QUIET.has(event.error)) return;
      this.#options.alert(this.#options.t(REFUSED.has(event.error) ? "dictate.denied" : "dictate.unavailable"));
    };
    recognition.onend = () => {
      if (this.#listening !== recognition) return;
      this.#listening = null;
      this.#button.setAttribute("aria-pressed", "false");
      this.#field.focus();
    };
    this.#listening = recognition;
    this.#button.setAttribute("aria-pressed", "true");
    try {
      recognition.start();
    } catch {
      recognition.onend();
      this.#options.alert(this.#options.t("dictate.unavailable"));
    }
  }
}

/** The browser's speech recognition, where it has one. */
function recognitionClass() {
  const scope = /** @type {any} */ (globalThis);
  return scope.SpeechRecognition ?? scope.webkitSpeechRecognition ?? null;
}
