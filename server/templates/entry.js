// Chatkeep's entry, the one file a page includes. The server writes the build's digest into
// it and has the browser ask for it again on each load (it is this small); every file it
// loads carries that digest in its URL and is kept for a year (server/build.py).
// worker-start.js runs first and starts an inline chat's worker before the element's modules
// run; a script after this one finds the element defined, as before.
import "./v/{build}/worker-start.js";
export { ChatWidget } from "./v/{build}/chat-widget.js";
