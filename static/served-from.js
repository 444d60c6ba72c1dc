// The app's static folder (…/static/), whether the widget's files were loaded under the
// build's digest (…/static/v/<digest>/, server/build.py) or by their plain paths.
export const STATIC_FOLDER = new URL(/\/v\/[0-9a-f]{24}\/[^/]+$/.test(new URL(import.meta.url).pathname) ? "../../" : "./", import.meta.url);
