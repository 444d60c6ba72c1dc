// The app's static folder (…/static/), whether the widget's files were loaded under the
// build's digest (…/static/v/<digest>/, server/build.py) or by their plain paths.
const digest = /\/v\/([0-9a-f]{24})\/[^/]+$/.exec(new URL(import.meta.url).pathname)?.[1] ?? null;
export const STATIC_FOLDER = new URL(digest ? "../../" : "./", import.meta.url);
/** The build's digest (null when loaded by plain paths). */
export const BUILD = digest;
