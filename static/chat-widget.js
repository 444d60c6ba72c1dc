// <chat-widget>: the one file a host page includes. The element renders; the controller
// (./client.js) talks to the worker, where the Python session decides.

import { WidgetClient } from "./client.js";
import { Transcript } from "./transcript.js";

const STYLESHEET = new URL("./chat-widget.css", import.meta.url).href;
const DEFAULT_ENDPOINT = new URL("/api", import.meta.url).href;
const THINKING_LEVELS = ["off", "low", "medium", "high"];

const TEMPLATE = `
<link rel="stylesheet" href="${STYLESHEET}">
<div class="chat" part="chat">
  <header>
    <h2 class="title">New conversation</h2>
    <div class="choices">
      <select class="model" aria-label="Model"></select>
      <select class="thinking" aria-label="Thinking">
        ${THINKING_LEVELS.map((level) => `<option value="${level}">${level}</option>`).join("")}
      </select>
    </div>
    <button type="button" class="icon new" aria-label="New conversation" title="New conversation">
      <svg viewBox="0 0 24 24" aria-hidden="true"><path d="M12 5v14M5 12h14"/></svg>
    </button>
  </header>
  <div class="loading" role="progressbar" aria-label="Loading the chat"><span></span></div>
  <div class="alert" role="alert" hidden></div>
  <div class="transcript" role="log" aria-label="Conversation">
    <p class="greeting">Hello! Ask me anything.</p>
  </div>
  <form class="composer">
    <textarea aria-label="Message" rows="2" placeholder="Message"></textarea>
    <button type="submit" class="send">Send</button>
  </form>
  <p class="usage" aria-live="polite"></p>
</div>`;

/** The host API, available at once on `element.session`; it answers after `ready`. */
class SessionHandle {
  #widget;
  /** @param {ChatWidget} widget */
  constructor(widget) {
    this.#widget = widget;
  }
  get ready() {
    return this.#widget.client.ready.then(() => undefined);
  }
  /** @param {string} text */
  async send(text) {
    await this.#widget.client.send(String(text));
  }
  save() {
    return this.#widget.client.request("save");
  }
  async restore(snapshot) {
    await this.#widget.client.request("stop");
    await this.#widget.client.request("restore", { snapshot: snapshot ?? null });
  }
  /** @param {() => void} listener */
  subscribe(listener) {
    const notify = () => listener();
    this.#widget.client.addEventListener("change", notify);
    this.#widget.client.addEventListener("draft", notify);
    return () => {
      this.#widget.client.removeEventListener("change", notify);
      this.#widget.client.removeEventListener("draft", notify);
    };
  }
  getHistory() {
    return this.#widget.client.request("getHistory");
  }
  async setHistory(messages) {
    await this.#widget.client.request("setHistory", { messages });
  }
  async readSnapshot(value) {
    try {
      return (await this.#widget.client.request("readSnapshot", { value })) ?? undefined;
    } catch {
      return undefined;
    }
  }
  async dispose() {
    this.#widget.client.dispose();
  }
}

export class ChatWidget extends HTMLElement {
  static define(tag = "chat-widget", registry = customElements) {
    if (!registry.get(tag)) registry.define(tag, this);
    return this;
  }

  /** @type {WidgetClient} */
  client;
  /** @type {SessionHandle} */
  session;
  #root;
  #transcript;
  #elements;
  #ready = false;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: "open" });
    this.#root.innerHTML = TEMPLATE;
    const $ = (selector) => /** @type {any} */ (this.#root.querySelector(selector));
    this.#elements = {
      title: $(".title"),
      loading: $(".loading"),
      alert: $(".alert"),
      log: $(".transcript"),
      greeting: $(".greeting"),
      form: $(".composer"),
      message: $("textarea"),
      send: $(".send"),
      model: $(".model"),
      thinking: $(".thinking"),
      newConversation: $(".new"),
      usage: $(".usage"),
    };
    this.#transcript = new Transcript(this.#elements.log, (target, text) => {
      target.textContent = text;
    });
    this.client = new WidgetClient({
      endpoint: this.endpoint,
      model: this.getAttribute("model"),
      instructions: this.getAttribute("instructions"),
    });
    this.session = new SessionHandle(this);
    this.#wire();
  }

  get endpoint() {
    return this.getAttribute("endpoint") || DEFAULT_ENDPOINT;
  }

  /** @param {import("./client.js").ToolDefinition} tool */
  registerTool(tool) {
    return this.client.registerTool(tool);
  }

  disconnectedCallback() {
    // Moving the element within the page disconnects and reconnects it: only a removal ends it.
    queueMicrotask(() => {
      if (!this.isConnected) this.session.dispose();
    });
  }

  #wire() {
    const { form, message, send, model, thinking, newConversation, log } = this.#elements;
    this.client.addEventListener("change", () => this.#render());
    this.client.addEventListener("draft", () => this.#render());
    this.client.addEventListener("alert", (event) => this.#showAlert(/** @type {CustomEvent} */ (event).detail));
    this.client.ready.then(
      () => {
        this.#ready = true;
        this.#elements.loading.remove();
        this.#render();
        this.#loadModels();
      },
      (error) => {
        this.#elements.loading.remove();
        this.#showAlert(error.message);
      },
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (this.client.state.busy) this.client.stop();
      else this.#sendDraft();
    });
    message.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        if (!this.client.state.busy) this.#sendDraft();
      }
    });
    send.disabled = true;
    model.addEventListener("change", () => this.client.request("setModel", { model: model.value }));
    thinking.addEventListener("change", () => this.client.request("setThinking", { level: thinking.value }));
    newConversation.addEventListener("click", () => this.session.restore());
    log.addEventListener("click", (event) => {
      const target = /** @type {HTMLElement} */ (event.target).closest("button[data-action]");
      if (target?.getAttribute("data-action") === "retry") {
        this.#clearAlert();
        this.client.request("retry", { index: Number(target.getAttribute("data-index")) });
      }
    });
  }

  #sendDraft() {
    const text = this.#elements.message.value.trim();
    if (!text || !this.#ready) return;
    this.#elements.message.value = "";
    this.#clearAlert();
    this.client.send(text).catch((error) => this.#showAlert(error.message));
  }

  async #loadModels() {
    const select = this.#elements.model;
    try {
      const response = await fetch(`${this.endpoint.replace(/\/+$/, "")}/models`);
      const { data } = await response.json();
      select.replaceChildren(...data.map(({ id }) => new Option(id, id)));
    } catch {
      select.replaceChildren(new Option(this.client.state.model || "default", this.client.state.model));
    }
    if (this.client.state.model) select.value = this.client.state.model;
    else if (select.options.length) this.client.request("setModel", { model: select.value });
  }

  #render() {
    const { state, draft } = this.client;
    const { title, send, greeting, thinking, model, usage } = this.#elements;
    title.textContent = state.title || "New conversation";
    greeting.hidden = state.messages.length > 0;
    this.#transcript.update(state.messages, draft);
    send.disabled = !this.#ready;
    send.textContent = state.busy ? "Stop" : "Send";
    send.classList.toggle("stop", state.busy);
    thinking.value = state.thinking;
    if (state.model && [...model.options].some((o) => o.value === state.model)) model.value = state.model;
    usage.textContent = state.usage
      ? `${state.usage.prompt_tokens ?? 0} tokens in, ${state.usage.completion_tokens ?? 0} out`
      : "";
    if (draft || state.busy) this.#elements.log.scrollTop = this.#elements.log.scrollHeight;
  }

  #showAlert(text) {
    this.#elements.alert.textContent = text;
    this.#elements.alert.hidden = false;
  }

  #clearAlert() {
    this.#elements.alert.hidden = true;
    this.#elements.alert.textContent = "";
  }
}

ChatWidget.define();
