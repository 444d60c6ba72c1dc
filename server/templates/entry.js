// Chatkeep's entry, the one file a page includes. The server writes the build's digest into
// it and has the browser ask for it again on each load (it is this small); every file it
// loads carries that digest in its URL and is kept for a year (server/build.py).
// worker-start.js runs first and starts an inline chat's worker before the element's modules
// run; a script after this one finds the element defined, as before. The modules the element
// imports are named here too (from static/chat-widget.js), so the browser asks for all of them
// at once, one round trip after this file instead of two.
import "./v/{build}/worker-start.js";
{modules}
export { ChatWidget } from "./v/{build}/chat-widget.js";
