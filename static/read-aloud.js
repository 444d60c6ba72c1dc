// Reading an answer aloud with the browser's own speech synthesis, where it has one: one
// answer at a time; its button reads "Stop reading" while it reads.

/** @type {{button: HTMLElement, utterance: SpeechSynthesisUtterance, label: string} | null} */
let reading = null;

export function canReadAloud() {
  return Boolean(globalThis.speechSynthesis) && typeof globalThis.SpeechSynthesisUtterance === "function";
}

/**
 * Starts reading `text` from `button`'s answer, or stops when that answer is being read.
 * @param {HTMLElement} button @param {string} text @param {string} lang
 * @param {{read: string, stop: string}} labels
 */
export function toggleReading(button, text, lang, labels) {
  const stopping = reading?.button === button;
  stopReading();
  if (stopping || !text.trim()) return;
  const utterance = new SpeechSynthesisUtterance(text);
  utterance.lang = lang;
  const finished = () => {
    if (reading?.utterance === utterance) stopReading();
  };
  utterance.addEventListener("end", finished);
  utterance.addEventListener("error", finished);
  reading = { button, utterance, label: labels.read };
  name(button, labels.stop, true);
  globalThis.speechSynthesis.speak(utterance);
}

function stopReading() {
  if (!reading) return;
  const { button, label } = reading;
  reading = null;
  globalThis.speechSynthesis.cancel();
  name(button, label, false);
}

function name(/** @type {HTMLElement} */ button, /** @type {string} */ label, /** @type {boolean} */ on) {
  button.setAttribute("aria-label", label);
  button.title = label;
  button.classList.toggle("reading", on);
}
