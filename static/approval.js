// A tool call waiting for the person: "Approve", "Allow for this conversation" (this tool runs
// without asking from now on, in this conversation only) or "Deny", where it happens.
//
// Approving runs something on the person's behalf, so it takes a deliberate press: the card
// never takes the keyboard focus (what the person is typing keeps going to the composer, and
// a space meant for a message can never press "Approve"), "Approve" only arms a moment after
// the card appears (a click or key aimed at what was there before does not land on it), a held
// key's repeats do nothing, and the arguments show in full, scrollable, before the buttons.

/** How long "Approve" waits before it can be pressed, as browsers do for permission prompts. */
export const APPROVE_ARMS_AFTER_MS = 600;

/**
 * Shows the call in `log` and resolves with the person's choice (`"conversation"`: allowed
 * for the rest of the conversation); an abort (the turn was stopped) counts as "Deny".
 * @param {HTMLElement} log
 * @param {{name: string, arguments: Record<string, unknown>, server?: string}} call  `server`:
 *   the operator's MCP server that runs it, named on the card
 * @param {AbortSignal} signal
 * @param {import("./strings.js").Lookup} t  the widget's strings
 * @returns {Promise<boolean | "conversation">}
 */
export function askApproval(log, call, signal, t) {
  const card = document.createElement("div");
  card.className = "approval";
  card.setAttribute("role", "group");
  card.setAttribute("aria-label", t("approval.group", { name: call.name }));
  const text = document.createElement("p");
  const name = document.createElement("code");
  name.textContent = call.name;
  text.append(t("approval.ask"), name);
  if (call.server) text.append(t("approval.server", { server: call.server }));
  const args = document.createElement("pre");
  args.className = "arguments";
  args.tabIndex = 0; // scrollable by keyboard too, but only when the person moves there
  args.setAttribute("aria-label", t("approval.arguments"));
  args.textContent = JSON.stringify(call.arguments, null, 2);
  const approve = button(t("approve"), "primary");
  const always = button(t("approve.conversation"), "");
  const deny = button(t("deny"), "");
  approve.disabled = always.disabled = true;
  const arming = setTimeout(() => (approve.disabled = always.disabled = false), APPROVE_ARMS_AFTER_MS);
  card.append(text, args, approve, always, deny);
  log.append(card);
  log.scrollTop = log.scrollHeight;
  return new Promise((resolve) => {
    const settle = (/** @type {boolean | "conversation"} */ answer) => {
      clearTimeout(arming);
      card.remove();
      resolve(answer);
    };
    for (const [choice, answer] of /** @type {const} */ ([[approve, true], [always, "conversation"], [deny, false]])) {
      choice.addEventListener("keydown", (event) => {
        if (event.repeat) event.preventDefault(); // a held key presses nothing
      });
      choice.addEventListener("click", () => settle(answer));
    }
    signal.addEventListener("abort", () => settle(false));
  });
}

/** @param {string} label @param {string} className */
function button(label, className) {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = label;
  if (className) element.className = className;
  return element;
}
