// Following an answer as it is written, only while the reader is at its end: a person who
// scrolled up to read stays where they are, to the pixel, and "Jump to latest" offers the
// way back (announced once, politely). Sending a message goes back to the end.

/** How far from the end (px) still counts as at the end: a finger's or a wheel's slack. */
const AT_END_PX = 32;

export class Follower {
  #log;
  #jump;
  #announce;
  /** whether the reader is at the end: then the view follows what grows */
  #atEnd = true;

  /**
   * @param {HTMLElement} log  the scrolling transcript @param {HTMLButtonElement} jump  "Jump to latest"
   * @param {() => void} announce  says once, politely, that the answer goes on below
   * @param {HTMLElement} next  takes the focus from the button as it goes (the message field)
   */
  constructor(log, jump, announce, next) {
    this.#log = log;
    this.#jump = jump;
    this.#announce = announce;
    log.addEventListener("scroll", () => {
      this.#atEnd = distanceToEnd(log) <= AT_END_PX;
      if (this.#atEnd) jump.hidden = true;
    }, { passive: true });
    jump.addEventListener("click", () => {
      this.toEnd();
      // The button goes away under the focus: the focus goes to what comes next.
      next.focus({ preventScroll: true });
    });
  }

  /** What the view shows grew (an answer, its reasoning, a tool's output): follow, or offer the way back. */
  grew() {
    if (this.#atEnd) {
      this.#log.scrollTop = this.#log.scrollHeight;
    } else if (this.#jump.hidden && distanceToEnd(this.#log) > AT_END_PX) {
      this.#jump.hidden = false;
      this.#announce();
    }
  }

  /** To the end, following again (the person sent a message, or asked to jump). */
  toEnd() {
    this.#atEnd = true;
    this.#jump.hidden = true;
    this.#log.scrollTop = this.#log.scrollHeight;
  }
}

/** @param {HTMLElement} log */
function distanceToEnd(log) {
  return log.scrollHeight - log.scrollTop - log.clientHeight;
}
