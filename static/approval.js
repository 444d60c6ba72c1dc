// A tool call waiting for the person: "Approve" or "Deny", in the transcript where it happens.

/**
 * Shows the call in `log` and resolves with the person's choice; an abort (the turn was
 * stopped) counts as "Deny".
 * @param {HTMLElement} log
 * @param {{name: string, arguments: string}} call
 * @param {AbortSignal} signal
 * @param {import("./strings.js").Lookup} t  the widget's strings
 * @returns {Promise<boolean>}
 */
export function askApproval(log, call, signal, t) {
  const card = document.createElement("div");
  card.className = "approval";
  card.setAttribute("role", "group");
  card.setAttribute("aria-label", t("approval.group", { name: call.name }));
  const text = document.createElement("p");
  const code = document.createElement("code");
  code.textContent = `${call.name}(${call.arguments})`;
  text.append(t("approval.ask"), code);
  const approve = document.createElement("button");
  approve.type = "button";
  approve.textContent = t("approve");
  approve.className = "primary";
  const deny = document.createElement("button");
  deny.type = "button";
  deny.textContent = t("deny");
  card.append(text, approve, deny);
  log.append(card);
  log.scrollTop = log.scrollHeight;
  approve.focus();
  return new Promise((resolve) => {
    const settle = (answer) => {
      card.remove();
      resolve(answer);
    };
    approve.addEventListener("click", () => settle(true));
    deny.addEventListener("click", () => settle(false));
    signal.addEventListener("abort", () => settle(false));
  });
  }
