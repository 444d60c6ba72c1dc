// consent="ask": until the person presses "Keep my conversations" (or the host calls
// `grantConsent()`), the widget writes nothing to the page's storage. Python's history still
// runs as `history="local"` would, but the page keeps its writes in memory (`area()`); on
// consent they go to localStorage, and so does everything after. `revokeConsent()` forgets
// what was kept. The answer itself is kept (`<prefix>:consent`) once given, so it is asked once.

/** A Storage of the page's memory: what localStorage would hold, gone with the page. */
class MemoryArea {
  /** @type {Map<string, string>} */
  items = new Map();
  get length() { return this.items.size; }
  key(/** @type {number} */ index) { return [...this.items.keys()][index] ?? null; }
  getItem(/** @type {string} */ key) { return this.items.get(key) ?? null; }
  setItem(/** @type {string} */ key, /** @type {string} */ value) { this.items.set(key, String(value)); }
  removeItem(/** @type {string} */ key) { this.items.delete(key); }
}

export class Consent extends EventTarget {
  #asked;
  #key;
  #prefix;
  #memory = new MemoryArea();

  /** @param {boolean} asked whether the element has `consent="ask"` @param {string} prefix */
  constructor(asked, prefix) {
    super();
    this.#asked = asked;
    this.#prefix = `${prefix}:`;
    this.#key = `${prefix}:consent`;
  }

  /** Whether the widget may write to the page's storage. */
  get granted() {
    if (!this.#asked) return true;
    try {
      return localStorage.getItem(this.#key) === "granted";
    } catch {
      return false;
    }
  }

  /** Whether the person is still to be asked. */
  get pending() {
    return !this.granted;
  }

  /** Where the conversations are written: localStorage once granted, the page's memory until. */
  area() {
    return /** @type {Storage} */ (this.granted ? localStorage : /** @type {unknown} */ (this.#memory));
  }

  /** The person agreed: what was kept in memory goes to localStorage, and all from now on. */
  grant() {
    if (this.granted) return;
    localStorage.setItem(this.#key, "granted");
    for (const [key, value] of this.#memory.items) localStorage.setItem(key, value);
    this.#memory.items.clear();
    this.dispatchEvent(new Event("change"));
  }

  /** The person withdrew: everything the widget kept in this page's storage is forgotten. */
  revoke() {
    for (const key of Object.keys(localStorage)) if (key.startsWith(this.#prefix)) localStorage.removeItem(key);
    this.#memory.items.clear();
    this.dispatchEvent(new Event("change"));
  }
}
