// Chatkeep's entry, the one file a page includes. The server writes the build's digest into
// it and has the browser ask for it again on each load (it is this small); every file it
// loads carries that digest in its URL and is kept for a year (server/build.py).
// It loads the element bundled in one file (bundle.js, worker-start.js's code first), or,
// while that is older than an edited source, worker-start.js then every module the element
// imports, named here so the browser asks for all of them at once. Either way worker-start.js
// starts an inline chat's worker before the element's own code runs, and a script after this
// one finds the element defined.
{loads}
