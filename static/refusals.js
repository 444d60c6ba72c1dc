// What the person is told when a request to the chat server fails: the server's own error
// (its message, and the code and params the page says it in its language by), the status
// line, or that the server could not be reached. One place for the answer stream (./sse.js)
// and the operator's tools (./server-tools.js).

/** @typedef {{message: string, code: string, params: Record<string, unknown>}} Said */

/**
 * What a refused request tells the person.
 * @param {Response} response @returns {Promise<Said>}
 */
export async function refusal(response) {
  try {
    const { error } = await response.json();
    if (typeof error?.message === "string") {
      const params = error.params && typeof error.params === "object" ? error.params : {};
      return { message: error.message, code: typeof error.code === "string" ? error.code : "", params };
    }
  } catch {
    // not JSON: fall through to the status line
  }
  const status = `${response.status} ${response.statusText}`.trim();
  return { message: `The chat server answered ${status}.`, code: "server_answered", params: { status } };
}

/** A request that reached no server (`fetch` rejected). @param {Error} error @returns {Said} */
export function unreachable(error) {
  return { message: `The chat server could not be reached (${error.message}).`, code: "server_unreachable", params: { detail: String(error.message) } };
}
