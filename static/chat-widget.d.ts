// Types for <chat-widget>, the one file a host page includes (static/chat-widget.js).
// `make test` checks these declarations against the JavaScript (tsc --noEmit, checkJs).
//
//   import type { ChatWidget, Snapshot } from "https://chat.example.com/static/chat-widget.js";
//   const chat = document.querySelector("chat-widget")!;   // typed as ChatWidget
//   const snapshot: Snapshot = await chat.session.save();

/** Where conversations are kept: the host page's localStorage, page memory, or nowhere. */
export type HistoryMode = "local" | "memory" | "off";
export type ThinkingLevel = "off" | "low" | "medium" | "high";
export type Theme = "light" | "dark" | "auto";

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface Attachment {
  name: string;
  mime: string;
  /** Base64 */
  data: string;
}

/** One message of a conversation (snapshot format, version 1). */
export interface Message {
  role: "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  /** The tool's name, on a tool message. */
  name?: string;
  attachments?: Attachment[];
  /** On an assistant message whose turn failed or was interrupted. */
  error?: string;
  /** On an answer: what the model thought before it answered (never sent upstream again). */
  reasoning?: string;
  /** How long it thought, in whole seconds. */
  reasoning_seconds?: number;
  /** A person's rating of the answer ("Good answer" / "Bad answer"). */
  feedback?: "good" | "bad";
  /** The links the answer cites (`url_citation` annotations): http(s) only, shown numbered. */
  sources?: { url: string; title: string }[];
}

/** A conversation as plain JSON (version 1); no system message, no configuration, no tools. */
export interface Snapshot {
  version: 1;
  id: string;
  title: string;
  /** Milliseconds since the epoch. */
  created: number;
  updated: number;
  provider?: string;
  model: string;
  thinking: ThinkingLevel;
  messages: Message[];
}

/**
 * A UI a tool's result may carry beside its text (cards, tables, forms): drawn by the widget
 * itself from a fixed set of components, checked whole (docs/features.md, "Answers that act").
 */
export interface UiSpec {
  v: 1;
  /** What is drawn (as Markdown, with a note) when the spec cannot be. */
  text: string;
  root: { type: string; [property: string]: unknown };
}

/** What a tool's handler returns: its text for the model, or that text and a UI to draw. */
export type ToolResult = string | { text: string; ui: UiSpec };

/** A tool the model may call; `handler` runs on the host page. */
export interface ToolDefinition<Args = any> {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters?: object;
  handler: (args: Args) => ToolResult | Promise<ToolResult>;
  /** Ask the person ("Approve" / "Deny") before each call. */
  approval?: boolean;
}

export interface HistoryEntry {
  id: string;
  title: string;
  updated: number;
  /** Pinned: listed first, never dropped by the limit or a full store. */
  pinned?: boolean;
}

/** A host-owned history store, assigned to `element.historyStore` before it is connected. */
export interface HistoryStore {
  ready?: Promise<unknown>;
  list(): HistoryEntry[];
  read(id: string): Snapshot | null | undefined | Promise<Snapshot | null | undefined>;
  keep(id: string, snapshot: Snapshot, title: string): void | Promise<void>;
  forget(id: string): void | Promise<void>;
}

/** `element.session`: available at once, answering once the runtime has loaded. */
export interface ChatSession {
  /** Settles when Python is running and history is loaded (a launcher: once first opened). */
  readonly ready: Promise<void>;
  /** Send a user message; resolves when the turn has settled (and been stored). */
  send(text: string): Promise<void>;
  /** The current snapshot; an answer still streaming is left out. */
  save(): Promise<Snapshot>;
  /** Open a snapshot in place (stopping a running turn), or a new conversation. */
  restore(snapshot?: Snapshot | null): Promise<void>;
  /** Calls `listener` on every change; returns the function that unsubscribes. */
  subscribe(listener: () => void): () => void;
  /** A copy of the messages (no system message). */
  getHistory(): Promise<Message[]>;
  /** Validates, then replaces; rejects with an Error naming the problem. */
  setHistory(messages: Message[]): Promise<void>;
  /** A snapshot read tolerantly (repairing its ending), or undefined; never throws. */
  readSnapshot(value: unknown): Promise<Snapshot | undefined>;
  /** Stores the last complete state and stops everything. */
  dispose(): Promise<void>;
  /** Resolves once ready and no turn runs: at once when idle, else when the running one settles. */
  settled(): Promise<void>;
  /** The open conversation's id ("" before ready). */
  readonly conversationId: string;
  /** The settled messages as the widget shows them, read at once (a copy). */
  readonly messages: Message[];
  /** True while an answer is being written (or tools run between answers). */
  readonly busy: boolean;
  /** The answer being written right now, as far as it has come; null when none is. */
  readonly draft: Message | null;
  /** True when the runtime started from the build's memory snapshot (the fast way). */
  readonly startedFromSnapshot: boolean;
  /**
   * Resolves true once this browser keeps the memory snapshot the next visit boots from (at
   * once when this visit booted from it), false when it will not (no consent, or refused).
   * A page closed sooner leaves the next visit a plain start.
   */
  snapshotKept(): Promise<boolean>;
}

/** The element's attributes, all optional (strings in HTML). */
export interface ChatWidgetAttributes {
  /** Where model calls go; default `api` beside the script's `static/` folder. */
  endpoint?: string;
  history?: HistoryMode;
  "storage-prefix"?: string;
  "max-conversations"?: number | string;
  "generate-title"?: boolean | "";
  model?: string;
  instructions?: string;
  theme?: Theme;
  "max-attachment-bytes"?: number | string;
  /** Seconds reading an attached PDF may take (30 by default); past it the reading stops. */
  "pdf-timeout"?: number | string;
  /** Space-separated hosts whose https images answers may show inline. */
  "image-hosts"?: string;
  /** A client token (`chatkeep.sign_client_token`) when the server has a client secret. */
  token?: string;
  /** `inline` (default) or `launcher`: a floating "Open chat" button opens a panel; nothing
   * heavy (no worker, no Python) loads until it is first opened. */
  mode?: "inline" | "launcher";
  /** With `mode="launcher"`: start Python at once, the panel still closed. */
  preload?: boolean | "";
  /** A JSON array of strings: buttons on an empty chat, each sending its text. */
  suggestions?: string;
  /** The language of every string (`en`, `de`); default the page's `<html lang>`, else `en`. */
  lang?: string;
  /** `rtl` lays the widget out right to left. */
  dir?: "ltr" | "rtl" | "auto";
}

/** The <chat-widget> element. */
export interface ChatWidget extends HTMLElement {
  /** The host API. */
  readonly session: ChatSession;
  /** A host-owned history store (assign before the element is connected), or null. */
  historyStore: HistoryStore | null;
  /**
   * What the page says about itself to the model: an object, or a function returning one (or
   * a promise of one), read at each message and sent upstream as a system message
   * `Page context: <JSON>` after the operator's instructions; shown nowhere, never kept.
   */
  pageContext: object | (() => object | Promise<object>) | null;
  /**
   * With `consent="ask"`: the person agreed to keep their conversations in this browser; what
   * was kept in memory until now is written, and the answer is remembered.
   */
  grantConsent(): void;
  /** Forgets everything the widget kept in this page's storage, the consent too. */
  revokeConsent(): void;
  /** Whether the widget still asks before it keeps anything (`consent="ask"`, not yet given). */
  readonly consentPending: boolean;
  /**
   * The conversation to open at start-up (set before the element is connected), read
   * tolerantly; an unreadable one opens a new conversation and warns in the console.
   */
  snapshot: Snapshot | string | null;
  /** A client token from the host's backend, sent with every API call. */
  token: string | null;
  /**
   * Synced history for a signed-in person: a per-person secret from the host's backend (at
   * least 32 characters, of at least 16 different ones; the same on each of their devices);
   * no sync code is shown then, and no storage keeps it. `""` signs the person out: sync stops
   * and their synced conversations leave this browser. Needs the `sync` attribute
   * (docs/history.md).
   */
  syncKey: string;
  /** Buttons on an empty chat, each sending its text (also the `suggestions` attribute). */
  suggestions: string[];
  /** The API base URL in use. */
  readonly endpoint: string;
  /** How much the files attached to one message may weigh together, in bytes. */
  readonly maxAttachmentBytes: number;
  /** Make a tool available to the model; returns the function that unregisters it. */
  registerTool(tool: ToolDefinition): () => void;
  /** Opens a launcher's panel, starting Python if it has not started (nothing inline). */
  open(): void;
  /** Closes a launcher's panel (nothing inline). */
  close(): void;
}

export declare const ChatWidget: {
  prototype: ChatWidget;
  new (): ChatWidget;
  /** Registers the element (done on import as `chat-widget`); returns the class. */
  define(tag?: string, registry?: CustomElementRegistry): unknown;
};

/** Events on the element; all bubble and cross the shadow boundary (`composed`). */
export interface ChatWidgetEventMap {
  /** Python is running and history is loaded. */
  "chatkeep-ready": CustomEvent<Record<string, never>>;
  /** A message a turn settled (the person's, an answer, a tool result). */
  "chatkeep-message": CustomEvent<Message>;
  /** An alert was shown. */
  "chatkeep-error": CustomEvent<{ message: string }>;
  /** The open conversation changed. */
  "chatkeep-conversation": CustomEvent<{ id: string; title: string }>;
  /** Synced history's state changed (`"off"` once this device stopped syncing). */
  "chatkeep-sync": CustomEvent<{ state: "synced" | "syncing" | "offline" | "error" | "off" }>;
  /** A person rated an answer, or took the rating back (`rating: null`). */
  "chatkeep-feedback": CustomEvent<{ conversationId: string; index: number; rating: "good" | "bad" | null }>;
}

declare global {
  interface HTMLElementTagNameMap {
    "chat-widget": ChatWidget;
  }
  interface HTMLElementEventMap extends ChatWidgetEventMap {}
}
