// Synced history on the history page: connect this device with a sync code (shown, or typed,
// or carried in a link's fragment) or with the key a site gives (`element.syncKey`), the
// status, and "Stop syncing". Loaded only for an element with the `sync` attribute; the
// worker does the rest (static/sync-client.js, widget/sync/synced.py).

import { SYNC_KEY_CHANGED } from "./sync-link.js";

/** @typedef {import("./client.js").WidgetClient} WidgetClient */

/** English; other languages in static/i18n/<lang>.js under the same keys. */
export const SYNC_STRINGS = {
  "sync.heading": "Synced history",
  "sync.devices": "Sync devices",
  "sync.use": "Use a sync code",
  "sync.code": "Sync code",
  "sync.connect": "Connect",
  "sync.cancel": "Cancel",
  "sync.done": "Done",
  "sync.stop": "Stop syncing",
  "sync.change": "Change sync code",
  "sync.changed": "The old code no longer works: your other devices stopped syncing. On each of them, type this new code.",
  "sync.show": "On your other device, open History, choose \u201cUse a sync code\u201d and type this code, or open this link there:",
  "sync.once": "The link holds no code, and works once, within 10 minutes.",
  "sync.link": "Link for another device",
  "sync.private": "Anyone with this code can read your conversations: keep it to yourself.",
  "sync.state.synced": "Synced",
  "sync.state.syncing": "Syncing\u2026",
  "sync.state.offline": "Offline: changes will sync later",
  "sync.state.error": "Not synced: see the message above",
  "sync.state.refused": "Not synced: {reason}",
  "sync.state.off": "This device does not sync its history.",
  "sync.unavailable": "This chat server does not keep synced history.",
  "sync.notKept": "This device keeps no copy of its sync code, so no script on this page can read it. On your other device, type the code you saved when it was made.",
  "sync.ask.title": "Connect to a synced history?",
  "sync.ask.copy": "The link you opened connects this browser to a synced history: the conversations kept in this browser will be copied there, and its conversations will show here.",
  "sync.ask.leave": "This browser already syncs its history: it will leave that synced history for this one.",
  "sync.ask.trust": "Connect only if you made this link yourself, on another of your devices.",
};
const EVERY_MS = 30_000;

/**
 * @param {{host: HTMLElement & {syncKey?: string, consentPending?: boolean}, client: WidgetClient,
 *   page: HTMLElement, root: ShadowRoot, link: import("./sync-link.js").SyncLink | null,
 *   t: import("./strings.js").Translate, act: (op: string, args: object) => Promise<any>}} options
 */
export async function startSyncing({ host, client, page, root, link, t, act }) {
  const ending = new AbortController();
  const signal = ending.signal;
  const say = (/** @type {keyof SYNC_STRINGS} */ key) => (t(key) === key ? SYNC_STRINGS[key] : t(key));
  const panel = build(page, say);
  /** @typedef {{offered: boolean, connected: boolean, state: string, reason?: import("./strings.js").Notice | null}} Status */
  /** The state in words; a refusal with the server's reason, which outlasts its alert. @param {Status} status */
  const stateText = (status) => !status.connected ? say("sync.state.off")
    : status.state === "error" && status.reason ? say("sync.state.refused").replace("{reason}", t.notice(status.reason))
    : say(/** @type {any} */ (`sync.state.${status.state}`));
  const show = (/** @type {Status} */ status) => {
    panel.section.hidden = false;
    panel.status.textContent = status.offered ? stateText(status) : say("sync.unavailable");
    const managed = Boolean(host.syncKey);
    panel.devices.hidden = !status.offered || managed;
    panel.use.hidden = !status.offered || managed || status.connected;
    panel.stop.hidden = !status.connected || managed;
    panel.change.hidden = !status.connected || managed;
  };
  let status = await client.call("syncStatus");
  show(status);
  let heard = 0; // `sync` events so far: a status asked for before the last one is stale
  const refresh = async () => {
    const asked = heard;
    const fresh = await client.call("syncStatus");
    const { connected, state, reason } = status;
    show((status = heard === asked ? fresh : { ...fresh, connected, state, reason }));
  };
  client.addEventListener("sync", (/** @type {any} */ event) => {
    heard += 1;
    status = { ...status, connected: event.detail.state !== "off", state: event.detail.state, reason: event.detail.reason };
    show(status);
    host.dispatchEvent(new CustomEvent("chatkeep-sync", { detail: { state: event.detail.state }, bubbles: true, composed: true }));
  }, { signal });
  if (!status.offered) return;

  /**
   * "Sync devices" and "Change sync code": the code, if this visit knows it, and a pairing link.
   * @param {() => Promise<{code: string, pairing: string} | undefined>} start @param {boolean} changed
   */
  const showCode = async (start, changed) => {
    const started = await start();
    if (!started) return;
    const link = new URL(location.href);
    link.hash = `chatkeep-pair=${started.pairing}`;
    const known = Boolean(started.code); // (made or typed in this visit: it is kept nowhere)
    panel.code.textContent = panel.saved.value = started.code;
    panel.link.href = panel.link.textContent = started.pairing ? link.href : "";
    for (const part of [panel.show, panel.code, panel.private]) part.hidden = !known;
    panel.link.hidden = panel.once.hidden = !started.pairing;
    panel.notKept.hidden = known;
    panel.changed.hidden = !changed;
    panel.shown.showModal();
    await refresh();
  };
  panel.devices.addEventListener("click", () => showCode(() => act("startSync", {}), false));
  panel.change.addEventListener("click", () => showCode(() => act("changeSyncCode", {}), true));
  panel.use.addEventListener("click", () => {
    panel.field.value = "";
    panel.ask.showModal();
  });
  panel.askForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    panel.error.textContent = "";
    try {
      await client.call("startSync", { code: panel.field.value });
    } catch (/** @type {any} */ error) {
      panel.error.textContent = t.notice({ message: error.message, code: error.code, params: error.params });
      return; // said in the dialog, where the person is looking
    }
    panel.ask.close();
    await refresh();
  });
  panel.cancel.addEventListener("click", () => panel.ask.close());
  panel.stop.addEventListener("click", async () => {
    await act("stopSync", {});
    await refresh();
  });

  // A site that signs people in gives their key (a weak one is the site's mistake: said in
  // the console, nothing synced), and takes it back to sign them out.
  const useKey = (/** @type {string} */ key) => client.call("useSyncKey", { key })
    .catch((/** @type {any} */ error) => console.error(`Chatkeep: element.syncKey: ${error.message}`));
  let signedIn = Boolean(host.syncKey);
  host.addEventListener(SYNC_KEY_CHANGED, async () => {
    const key = String(host.syncKey ?? "");
    if (key) await useKey(key);
    else if (signedIn) await act("signOut", {});
    signedIn = Boolean(key);
    await refresh();
  }, { signal });
  // A link carries a pairing (or a code someone typed) in its fragment, and connects only
  // once the person says so (never over a site's key, nor before consent).
  if (host.syncKey) await useKey(String(host.syncKey));
  else if (link && !host.consentPending && (await askToConnect(root, say, status.connected))) {
    await act("startSync", link.kind === "pair" ? { pairing: link.value } : { code: link.value });
  }
  await refresh();

  // Rounds: now, when the page comes back into view or online, and every 30 s while shown.
  const round = () => {
    if (!host.isConnected) ending.abort(); // the element was removed: no more rounds
    else if (document.visibilityState === "visible") client.call("syncNow").catch(() => {});
  };
  round();
  addEventListener("focus", round, { signal });
  addEventListener("online", round, { signal });
  document.addEventListener("visibilitychange", round, { signal });
  const timer = setInterval(round, EVERY_MS);
  signal.addEventListener("abort", () => clearInterval(timer));
}

/**
 * "Connect to a synced history?": what connecting does, "Connect" or "Cancel" (which has the
 * focus: a link alone, maybe someone else's, must not take the person's history).
 * @param {ShadowRoot} root @param {(key: keyof SYNC_STRINGS) => string} say @param {boolean} leaving
 * @returns {Promise<boolean>} whether the person chose "Connect"
 */
function askToConnect(root, say, leaving) {
  const holder = document.createElement("div");
  holder.className = "sync-offer-holder";
  holder.innerHTML = `<link rel="stylesheet" href="${new URL("./sync-panel.css", import.meta.url).href}">
    <dialog class="sync-offer">
      <h3></h3><p class="sync-offer-copy"></p><p class="sync-offer-leave"></p><p class="sync-offer-trust"></p>
      <form method="dialog"><button value="connect" class="sync-offer-connect"></button>
        <button value="cancel" class="sync-offer-cancel" autofocus></button></form>
    </dialog>`;
  const dialog = /** @type {HTMLDialogElement} */ (holder.querySelector("dialog"));
  const text = /** @type {[string, keyof SYNC_STRINGS][]} */ ([
    ["h3", "sync.ask.title"], [".sync-offer-copy", "sync.ask.copy"], [".sync-offer-leave", "sync.ask.leave"],
    [".sync-offer-trust", "sync.ask.trust"], [".sync-offer-connect", "sync.connect"], [".sync-offer-cancel", "sync.cancel"],
  ]);
  for (const [selector, key] of text) /** @type {HTMLElement} */ (holder.querySelector(selector)).textContent = say(key);
  /** @type {HTMLElement} */ (holder.querySelector(".sync-offer-leave")).hidden = !leaving;
  dialog.setAttribute("aria-label", say("sync.ask.title"));
  root.append(holder);
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      holder.remove();
      resolve(dialog.returnValue === "connect");
    }, { once: true });
    dialog.showModal();
    /** @type {HTMLElement} */ (holder.querySelector(".sync-offer-cancel")).focus();
  });
}

/**
 * The section on the history page and its two dialogs.
 * @param {HTMLElement} page @param {(key: keyof SYNC_STRINGS) => string} say
 */
function build(page, say) {
  const section = document.createElement("section");
  section.className = "sync";
  section.hidden = true; // shown once its buttons answer (a click before that would do nothing)
  section.setAttribute("aria-label", say("sync.heading"));
  section.innerHTML = `<link rel="stylesheet" href="${new URL("./sync-panel.css", import.meta.url).href}">
    <p class="sync-status" role="status"></p>
    <button type="button" class="sync-devices"></button>
    <button type="button" class="sync-use"></button>
    <button type="button" class="sync-change"></button>
    <button type="button" class="sync-stop"></button>
    <dialog class="sync-shown">
      <h3 class="sync-shown-title"></h3>
      <p class="sync-changed" hidden></p>
      <p class="sync-show"></p>
      <p class="sync-code"></p>
      <p><a class="sync-link" rel="noopener"></a></p>
      <p class="sync-once"></p>
      <p class="sync-private"></p>
      <p class="sync-not-kept" hidden></p>
      <form method="dialog" class="sync-save">
        <input class="sync-account" name="username" autocomplete="username" value="Chatkeep" readonly tabindex="-1" aria-hidden="true">
        <input class="sync-saved" type="password" name="password" autocomplete="new-password" readonly tabindex="-1" aria-hidden="true">
        <button class="sync-done"></button></form>
    </dialog>
    <dialog class="sync-ask">
      <h3 class="sync-ask-title"></h3>
      <form class="sync-ask-form">
        <input class="sync-account" name="username" autocomplete="username" value="Chatkeep" readonly tabindex="-1" aria-hidden="true">
        <label><span class="sync-code-label"></span> <input class="sync-field" name="password" type="password" autocomplete="current-password" spellcheck="false"></label>
        <p class="sync-error" role="alert"></p>
        <button class="sync-connect"></button>
        <button type="button" class="sync-cancel"></button>
      </form>
    </dialog>`;
  const $ = (/** @type {string} */ selector) => /** @type {any} */ (section.querySelector(selector));
  const text = /** @type {[string, keyof SYNC_STRINGS][]} */ ([
    [".sync-devices", "sync.devices"], [".sync-use", "sync.use"], [".sync-stop", "sync.stop"],
    [".sync-change", "sync.change"], [".sync-changed", "sync.changed"], [".sync-once", "sync.once"],
    [".sync-show", "sync.show"], [".sync-private", "sync.private"], [".sync-done", "sync.done"],
    [".sync-not-kept", "sync.notKept"],
    [".sync-code-label", "sync.code"], [".sync-connect", "sync.connect"], [".sync-cancel", "sync.cancel"],
    [".sync-shown-title", "sync.devices"], [".sync-ask-title", "sync.use"],
  ]);
  for (const [selector, key] of text) $(selector).textContent = say(key);
  $(".sync-shown").setAttribute("aria-label", say("sync.devices"));
  $(".sync-ask").setAttribute("aria-label", say("sync.use"));
  $(".sync-link").setAttribute("aria-label", say("sync.link"));
  page.querySelector("footer")?.before(section);
  return {
    section, status: $(".sync-status"), devices: $(".sync-devices"), use: $(".sync-use"), stop: $(".sync-stop"),
    change: $(".sync-change"), changed: $(".sync-changed"), saved: /** @type {HTMLInputElement} */ ($(".sync-saved")),
    once: $(".sync-once"),
    shown: /** @type {HTMLDialogElement} */ ($(".sync-shown")), code: $(".sync-code"), link: /** @type {HTMLAnchorElement} */ ($(".sync-link")),
    show: $(".sync-show"), private: $(".sync-private"), notKept: $(".sync-not-kept"),
    ask: /** @type {HTMLDialogElement} */ ($(".sync-ask")), askForm: $(".sync-ask-form"), field: /** @type {HTMLInputElement} */ ($(".sync-field")),
    cancel: $(".sync-cancel"), error: $(".sync-error"),
  };
}
