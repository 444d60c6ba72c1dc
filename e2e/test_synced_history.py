"""Synced history, two devices at a time (two browser contexts), on SQLite and on PostgreSQL:
a conversation kept on one appears on the other; renames and forgetting travel; the store
holds no word of it; a wrong code sees nothing; a server that is down or has no sync never
blocks the chat."""

from __future__ import annotations

from pathlib import Path

import pytest
from pages import BOOT_TIMEOUT, host_page, widget
from playwright.sync_api import Browser, Page, expect
from servers import RunningServer
from synced_store import Synced

SECRET_WORDS = "Zanzibar marmalade"


pytestmark = pytest.mark.usefixtures("devices_closed")


def device(browser: Browser, server: RunningServer, script: str = "") -> Page:
    """Another device: a browser context of its own (its own localStorage)."""
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    page.set_default_timeout(BOOT_TIMEOUT)
    page.add_init_script("""window.syncStates = [];
      addEventListener('chatkeep-sync', e => window.syncStates.push(e.detail.state));""")
    host_page(page, 'history="local" sync', script=script, base=server.url)
    return page


def open_history(page: Page) -> None:
    """The history page, opened (unless it is open: its "Synced history" region shows)."""
    if not page.get_by_role("region", name="Synced history").is_visible():
        page.get_by_role("button", name="History").click()
    expect(page.get_by_role("button", name="Sync devices")).to_be_visible()


def conversations(page: Page) -> list[str]:
    items = page.get_by_role("list", name="Conversations", exact=True).get_by_role("listitem")
    return [text.strip() for text in items.all_inner_texts()]


def show_code(page: Page) -> str:
    """ "Sync devices": the code this device syncs with, read off the dialog."""
    return show_code_and_link(page)[0]


def show_code_and_link(page: Page) -> tuple[str, str]:
    """ "Sync devices": the code, and a pairing link for another device (no code in it)."""
    open_history(page)
    page.get_by_role("button", name="Sync devices").click()
    dialog = page.get_by_role("dialog", name="Sync devices")
    expect(dialog).to_be_visible()
    code = dialog.locator(".sync-code").inner_text()
    link = dialog.get_by_role("link", name="Link for another device").get_attribute("href")
    assert link is not None and "#chatkeep-pair=" in link and code.replace("-", "") not in link
    expect(dialog).to_contain_text("works once, within 10 minutes")
    saved = dialog.locator("input[autocomplete=new-password]")  # for the password manager
    assert saved.input_value() == code and saved.get_attribute("type") == "password"
    dialog.get_by_role("button", name="Done").click()
    expect(page.get_by_role("status").filter(has_text="Synced")).to_be_visible()
    return code, link


def use_code(page: Page, code: str) -> None:
    open_history(page)
    page.get_by_role("button", name="Use a sync code").click()
    dialog = page.get_by_role("dialog", name="Use a sync code")
    dialog.get_by_role("textbox", name="Sync code").fill(code)
    dialog.get_by_role("button", name="Connect").click()
    expect(dialog).to_be_hidden()


def states(page: Page) -> int:
    """How many sync states the page has shown so far (`window.syncStates`)."""
    return int(page.evaluate("window.syncStates.length"))


def round_done(page: Page, since: int) -> None:
    """Wait for a round that began after the `since`-th state to end synced: a change made
    since then has been sent (a round runs 1.5 s after a change). No fixed wait."""
    page.wait_for_function("""(since) => {
      const seen = window.syncStates.slice(since);
      const began = seen.indexOf('syncing');
      return began >= 0 && seen.indexOf('synced', began) > began;
    }""", arg=since, timeout=60_000)  # fmt: skip


def cue(page: Page) -> None:
    """The person comes back to the page: a round of sync (as on focus)."""
    page.evaluate("dispatchEvent(new Event('focus'))")


def cued(page: Page) -> None:
    """A round on the person's cue, waited for to its end (however slow the machine)."""
    before = states(page)
    cue(page)
    round_done(page, before)


def test_a_conversation_follows_the_person_to_another_device(
    browser: Browser, synced: Synced
) -> None:
    laptop = device(browser, synced.chat)
    widget(laptop).send(f"My name is {SECRET_WORDS}")
    code = show_code(laptop)
    assert len(code.replace("-", "")) == 32  # 160 bits, in groups of four

    phone = device(browser, synced.chat)
    use_code(phone, code.lower().replace("-", " "))  # typed loosely: still the code
    list_item = phone.get_by_role("listitem").filter(has_text=SECRET_WORDS)
    expect(list_item).to_be_visible()
    expect(phone.get_by_role("status").filter(has_text="Synced")).to_be_visible()
    list_item.get_by_role("button", name=f"My name is {SECRET_WORDS}").click()
    expect(phone.get_by_role("log", name="Conversation")).to_contain_text(SECRET_WORDS)
    assert "synced" in phone.evaluate("window.syncStates")

    # Renamed on the phone: the laptop has the new name after its next round.
    phone.get_by_role("button", name="History").click()
    phone.get_by_role("button", name="Rename").first.click()
    field = phone.get_by_role("textbox", name="New title")
    field.fill("Marmalade plans")
    field.press("Enter")
    renamed = phone.get_by_role("listitem").filter(has_text="Marmalade plans")
    expect(renamed).to_be_visible()
    before = states(phone)
    renamed.get_by_role("button", name="Pin", exact=True).click()  # and pinned
    expect(renamed.get_by_role("button", name="Unpin")).to_be_visible()
    round_done(phone, before)  # the change is sent 1.5 s after it was kept
    cued(laptop)
    on_laptop = laptop.get_by_role("listitem").filter(has_text="Marmalade plans")
    expect(on_laptop).to_be_visible()
    expect(on_laptop.get_by_role("button", name="Unpin")).to_be_visible()

    # The server never saw a word, a title or a time.
    raw = synced.raw_bytes()
    assert raw and b"Zanzibar" not in raw and b"marmalade" not in raw.lower()
    assert b"Marmalade plans" not in raw

    # A device with another code sees nothing of it, and breaks nothing.
    stranger = device(browser, synced.chat)
    other = show_code(stranger)
    assert other != code
    expect(stranger.get_by_role("listitem")).to_have_count(0)
    cue(laptop)
    expect(laptop.get_by_role("listitem").filter(has_text="Marmalade plans")).to_have_count(1)

    # Forgotten on the laptop: gone from the phone too.
    before = states(laptop)
    laptop.get_by_role("button", name="Forget").first.click()
    expect(laptop.get_by_role("listitem")).to_have_count(0)
    round_done(laptop, before)
    cued(phone)
    expect(phone.get_by_role("listitem").filter(has_text="Marmalade plans")).to_have_count(0)
    for page in (laptop, phone, stranger):
        page.context.close()


def test_a_pairing_link_connects_once_and_stop_syncing_keeps_the_history(
    browser: Browser, synced: Synced
) -> None:
    laptop = device(browser, synced.chat)
    widget(laptop).send("Linked from the laptop")
    _, link = show_code_and_link(laptop)
    phone = device(browser, synced.chat)
    open_link(phone, link)
    asked = phone.get_by_role("dialog", name="Connect to a synced history?")
    asked.get_by_role("button", name="Connect").click()
    expect(asked).to_be_hidden()
    phone.get_by_role("button", name="History").click()
    expect(phone.get_by_role("listitem").filter(has_text="Linked from the laptop")).to_be_visible()
    assert "chatkeep-pair" not in phone.url  # the link does not stay in the address bar
    late = device(browser, synced.chat)  # the same link, opened again: it was used
    open_link(late, link)
    late.get_by_role("dialog", name="Connect to a synced history?").get_by_role(
        "button", name="Connect").click()  # fmt: skip
    expect(late.get_by_role("alert")).to_contain_text("expired or was used already")
    open_history(late)
    expect(late.get_by_role("status").filter(has_text="does not sync")).to_be_visible()
    late.context.close()
    other_tab = phone.context.new_page()  # a second tab of the phone's browser, syncing too
    other_tab.set_default_timeout(BOOT_TIMEOUT)
    host_page(other_tab, 'history="local" sync', base=synced.chat.url)
    open_history(other_tab)
    expect(other_tab.get_by_role("status").filter(has_text="Synced")).to_be_visible()
    phone.get_by_role("button", name="Stop syncing").click()
    expect(phone.get_by_role("status").filter(has_text="does not sync")).to_be_visible()
    expect(phone.get_by_role("listitem").filter(has_text="Linked from the laptop")).to_be_visible()
    expect(phone.get_by_role("button", name="Use a sync code")).to_be_visible()
    # The other tab stopped with it: it says so, and offers a code again.
    expect(other_tab.get_by_role("status").filter(has_text="does not sync")).to_be_visible()
    expect(other_tab.get_by_role("button", name="Use a sync code")).to_be_visible()
    for page in (laptop, phone):
        page.context.close()


def test_a_mistyped_code_is_said_in_the_dialog(browser: Browser, synced: Synced) -> None:
    page = device(browser, synced.chat)
    open_history(page)
    page.get_by_role("button", name="Use a sync code").click()
    dialog = page.get_by_role("dialog", name="Use a sync code")
    dialog.get_by_role("textbox", name="Sync code").fill("1234-5678")
    dialog.get_by_role("button", name="Connect").click()
    expect(dialog.get_by_role("alert")).to_contain_text("That is not a sync code")
    # One character mistyped: said before anything connects (version 1 said "Synced").
    other = device(browser, synced.chat)
    code = show_code(other)
    typo = ("1" if code[0] != "1" else "2") + code[1:]
    dialog.get_by_role("textbox", name="Sync code").fill(typo)
    dialog.get_by_role("button", name="Connect").click()
    expect(dialog.get_by_role("alert")).to_contain_text("This sync code is mistyped")
    expect(dialog).to_be_visible()
    for each in (page, other):
        each.context.close()


def test_a_change_shows_on_another_open_device_without_a_reload_or_focus(
    browser: Browser, synced: Synced
) -> None:
    laptop = device(browser, synced.chat)
    code = show_code(laptop)
    phone = device(browser, synced.chat)
    use_code(phone, code)  # its history open, nothing more done there
    laptop.get_by_role("button", name="Back").click()
    widget(laptop).send("Sent from the laptop just now")
    expect(phone.get_by_role("listitem").filter(has_text="Sent from the laptop")).to_be_visible(
        timeout=15_000)  # fmt: skip
    for page in (laptop, phone):
        page.context.close()


def test_change_sync_code_stops_the_devices_using_the_old_one(
    browser: Browser, synced: Synced
) -> None:
    laptop = device(browser, synced.chat)
    widget(laptop).send("Kept through the change")
    code = show_code(laptop)
    phone = device(browser, synced.chat)
    use_code(phone, code)
    expect(phone.get_by_role("listitem").filter(has_text="Kept through")).to_be_visible()
    laptop.get_by_role("button", name="Change sync code").click()
    shown = laptop.get_by_role("dialog", name="Sync devices")
    expect(shown).to_contain_text("The old code no longer works")
    new_code = shown.locator(".sync-code").inner_text()
    assert new_code and new_code != code
    shown.get_by_role("button", name="Done").click()
    before = states(phone)
    cue(phone)  # its next round hears 410: it stops ("off")
    phone.wait_for_function("n => window.syncStates.slice(n).includes('off')", arg=before,
                            timeout=60_000)  # fmt: skip
    expect(phone.get_by_role("alert")).to_contain_text(
        "This sync code was changed on another device"
    )
    expect(phone.get_by_role("status").filter(has_text="does not sync")).to_be_visible()
    expect(phone.get_by_role("listitem").filter(has_text="Kept through")).to_be_visible()
    use_code(phone, new_code)
    expect(phone.get_by_role("status").filter(has_text="Synced")).to_be_visible()
    for page in (laptop, phone):
        page.context.close()


def test_a_server_that_is_down_never_blocks_the_chat(browser: Browser, synced: Synced) -> None:
    page = device(browser, synced.chat)
    show_code(page)
    page.route("**/api/sync/**", lambda route: route.abort())
    page.get_by_role("button", name="Back").click()
    widget(page).send("Written while the store is away")  # the chat goes on
    cue(page)
    page.get_by_role("button", name="History").click()
    expect(
        page.get_by_role("status").filter(has_text="Offline: changes will sync later")
    ).to_be_visible()
    page.unroute("**/api/sync/**")
    cue(page)
    expect(page.get_by_role("status").filter(has_text="Synced")).to_be_visible()
    assert "offline" in page.evaluate("window.syncStates")
    page.context.close()


def test_a_server_without_sync_says_so(page: Page) -> None:
    host_page(page, 'history="local" sync')
    page.get_by_role("button", name="History").click()
    expect(page.get_by_text("This chat server does not keep synced history.")).to_be_visible()
    expect(page.get_by_role("button", name="Sync devices")).to_be_hidden()


def test_two_devices_continuing_one_conversation_keep_both_as_versions(
    browser: Browser, synced: Synced
) -> None:
    """Version 1 made a copy titled " (other device)" on every device."""
    laptop = device(browser, synced.chat)
    widget(laptop).send("Plans for Sunday")
    code = show_code(laptop)
    laptop.get_by_role("button", name="Back").click()
    phone = device(browser, synced.chat)
    use_code(phone, code)
    phone.get_by_role("listitem").filter(has_text="Plans for Sunday").get_by_role(
        "button", name="Plans for Sunday").click()  # fmt: skip
    phone.route("**/api/sync/**", lambda route: route.abort())  # the phone goes offline
    widget(phone).send("The phone adds a picnic")
    before = states(laptop)
    widget(laptop).send("The laptop adds a museum")
    round_done(laptop, before)  # sent by the laptop meanwhile
    phone.unroute("**/api/sync/**")
    before_phone = states(phone)
    cue(phone)
    round_done(phone, before_phone)
    cued(laptop)
    for page, ours, theirs in ((phone, "picnic", "museum"), (laptop, "picnic", "museum")):
        open_history(page)
        expect(page.get_by_role("listitem")).to_have_count(1)
        page.get_by_role("listitem").get_by_role("button", name="Plans for Sunday").click()
        log = page.get_by_role("log")
        expect(log).to_contain_text(ours)  # the phone's shown (it merged), on both devices
        expect(log.get_by_text("1 / 2")).to_be_visible()
        log.get_by_role("button", name="Next version").click()
        expect(log).to_contain_text(theirs)
        expect(log.get_by_text("2 / 2")).to_be_visible()
    for page in (laptop, phone):
        page.context.close()


def test_a_tampered_item_is_skipped_and_the_person_told(browser: Browser, synced: Synced) -> None:
    laptop = device(browser, synced.chat)
    widget(laptop).send("Nobody may change this")
    code = show_code(laptop)
    synced.tamper()
    phone = device(browser, synced.chat)
    use_code(phone, code)
    expect(phone.get_by_role("alert")).to_contain_text("could not be read with this sync code")
    expect(phone.get_by_role("listitem").filter(has_text="Nobody may change this")).to_have_count(0)
    for page in (laptop, phone):
        page.context.close()


def test_a_site_that_signs_people_in_gives_the_key(browser: Browser, synced: Synced) -> None:
    key = "person-42-secret-from-the-site-backend"
    script = f"document.querySelector('chat-widget').syncKey = {key!r};"
    laptop, phone = (
        device(browser, synced.chat, script=script),
        device(browser, synced.chat, script=script),
    )
    before = states(laptop)
    widget(laptop).send("Kept for a signed-in person")
    round_done(laptop, before)
    phone.get_by_role("button", name="History").click()
    cued(phone)
    expect(
        phone.get_by_role("listitem").filter(has_text="Kept for a signed-in person")
    ).to_be_visible()
    expect(
        phone.get_by_role("button", name="Sync devices")
    ).to_be_hidden()  # the site's key, not a code
    for page in (laptop, phone):
        page.context.close()


def test_a_full_space_is_refused_and_the_person_told(
    browser: Browser, synced: Synced, tmp_path: Path
) -> None:
    store = synced.postgres.database() if synced.postgres else f"sqlite:///{tmp_path / 'sync.db'}"
    small = RunningServer("--sync-store", store, "--sync-space-bytes", "100").wait_until_up()
    try:
        page = device(browser, small)
        widget(page).send("A conversation larger than the whole space")
        open_history(page)
        page.get_by_role("button", name="Sync devices").click()
        page.get_by_role("dialog", name="Sync devices").get_by_role("button", name="Done").click()
        expect(page.get_by_role("alert")).to_contain_text("Your synced history is full")
        status = page.get_by_role("status").filter(has_text="Not synced")
        expect(status).to_contain_text("Your synced history is full")  # the status says why
        expect(page.get_by_role("listitem")).to_have_count(1)  # kept here all the same
        # The person goes on (a search clears the alert); the next round is refused again:
        # not said again in an alert, and the status still says why.
        page.get_by_role("searchbox", name="Search conversations").fill("larger")
        expect(page.get_by_role("alert")).to_be_hidden()
        page.evaluate("window.syncStates.length = 0")
        cue(page)
        page.wait_for_function("window.syncStates.includes('error')")
        expect(page.get_by_role("alert")).to_be_hidden()
        expect(status).to_contain_text("Your synced history is full")
        page.context.close()
    finally:
        small.stop()


def open_link(page: Page, url: str) -> None:
    """The person opens `url` (a new page load, not a jump within the one open)."""
    page.goto("about:blank")
    page.goto(url)
    widget(page).wait_ready()


def sync_requests(page: Page) -> list[str]:
    """Every request the page makes to the sync API, as it makes them."""
    seen: list[str] = []
    page.on("request", lambda request: seen.append(request.url) if "/api/sync/" in request.url
            else None)  # fmt: skip
    return seen


#: the address's fragment when the widget's worker is made (before Python boots)
FRAGMENT_AT_BOOT = """window.fragmentAtBoot = null;
const Original = window.Worker;
window.Worker = class extends Original {
  constructor(...args) { window.fragmentAtBoot ??= location.hash; super(...args); }
};"""


def test_a_link_asks_first_and_cancel_connects_nothing(browser: Browser, synced: Synced) -> None:
    """A stranger's link connected a visitor's browser to the stranger's space without a
    question, and uploaded every conversation it held."""
    stranger = device(browser, synced.chat)
    code = show_code(stranger)
    visitor = device(browser, synced.chat, script=FRAGMENT_AT_BOOT)
    widget(visitor).send("My own plans, kept here")
    sent = sync_requests(visitor)
    open_link(visitor, f"{synced.chat.url}/e2e-host#chatkeep-sync={code}&keep=me")
    asked = visitor.get_by_role("dialog", name="Connect to a synced history?")
    expect(asked).to_be_visible()
    expect(asked).to_contain_text("will be copied there")
    expect(asked.get_by_text("leave that synced history")).to_be_hidden()  # it synced nothing
    expect(asked.get_by_role("button", name="Cancel")).to_be_focused()
    assert visitor.url.endswith("/e2e-host#keep=me")  # the code is out of the address
    assert visitor.evaluate("window.fragmentAtBoot") == "#keep=me"  # before anything booted
    assert sent == []  # nothing went to the sync server before the person answered
    asked.get_by_role("button", name="Cancel").click()
    expect(asked).to_be_hidden()
    open_history(visitor)
    expect(visitor.get_by_role("status").filter(has_text="does not sync")).to_be_visible()
    assert sent == []
    cue(stranger)
    expect(stranger.get_by_role("listitem").filter(has_text="My own plans")).to_have_count(0)
    for page in (stranger, visitor):
        page.context.close()


def test_a_link_to_another_space_says_this_browser_leaves_its_own(
    browser: Browser, synced: Synced
) -> None:
    other = device(browser, synced.chat)
    code = show_code(other)
    phone = device(browser, synced.chat)
    widget(phone).send("Plans kept in the phone's own space")
    show_code(phone)
    open_link(phone, f"{synced.chat.url}/e2e-host#chatkeep-sync={code}")
    asked = phone.get_by_role("dialog", name="Connect to a synced history?")
    expect(asked.get_by_text("it will leave that synced history for this one")).to_be_visible()
    phone.keyboard.press("Escape")  # as "Cancel"
    expect(asked).to_be_hidden()
    open_history(phone)
    expect(phone.get_by_role("status").filter(has_text="Synced")).to_be_visible()  # its own
    cue(other)
    expect(other.get_by_role("listitem")).to_have_count(0)  # nothing of the phone's went there
    # Its own code is kept nowhere on the page since the reload: "Sync devices" says so.
    phone.get_by_role("button", name="Sync devices").click()
    devices = phone.get_by_role("dialog", name="Sync devices")
    expect(devices.get_by_text("This device keeps no copy of its sync code")).to_be_visible()
    expect(devices.get_by_role("link", name="Link for another device")).to_be_hidden()
    for page in (other, phone):
        page.context.close()


SITE_KEY = "person-7-0123456789abcdefghijklmnopqrstuv"  # long, and of many characters


@pytest.mark.parametrize("attributes", ['sync consent="ask"', "sync"])
def test_a_link_is_ignored_under_a_site_s_key_and_before_consent(
    browser: Browser, synced: Synced, attributes: str
) -> None:
    stranger = device(browser, synced.chat)
    code = show_code(stranger)
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    page.set_default_timeout(BOOT_TIMEOUT)
    sent = sync_requests(page)
    site_key = "" if "consent" in attributes else SITE_KEY
    script = f"document.querySelector('chat-widget').syncKey = {site_key!r};" if site_key else ""
    host_page(page, f'history="local" {attributes}', script=script, base=synced.chat.url,
              fragment=f"chatkeep-sync={code}")  # fmt: skip
    widget(page).wait_ready()
    page.get_by_role("button", name="History").click()
    # Shown in the same step that would have asked (static/sync-panel.js): no waiting on time.
    expect(page.get_by_role("region", name="Synced history")).to_be_visible()
    expect(page.get_by_role("dialog", name="Connect to a synced history?")).to_have_count(0)
    if site_key:  # the site's key, not the link's code
        expect(page.get_by_role("status").filter(has_text="Synced")).to_be_visible()
    assert "chatkeep-sync" not in page.url
    assert not any(code.replace("-", "") in url for url in sent)
    for spaces in (stranger.context, context):
        spaces.close()


#: every string the page's origin keeps: localStorage, sessionStorage, Cache Storage (URLs
#: and bodies) and IndexedDB (every value, walked), and whether the sync keys are CryptoKeys
#: whose bytes a script cannot export
STORED = """async () => {
  const texts = [];
  for (const store of [localStorage, sessionStorage]) {
    for (let i = 0; i < store.length; i++) texts.push(store.key(i), store.getItem(store.key(i)));
  }
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      texts.push(request.url, await (await cache.match(request)).text());
    }
  }
  const keys = [];
  const walk = (value) => {
    if (value instanceof CryptoKey) keys.push(value);
    else if (typeof value === "string") texts.push(value);
    else if (value && typeof value === "object") Object.values(value).forEach(walk);
  };
  for (const { name } of await indexedDB.databases()) {
    const opening = indexedDB.open(name);
    const db = await new Promise((ok) => { opening.onsuccess = () => ok(opening.result); });
    for (const storeName of db.objectStoreNames) {
      const all = db.transaction(storeName).objectStore(storeName).getAll();
      walk(await new Promise((ok) => { all.onsuccess = () => ok(all.result); }));
    }
    db.close();
  }
  const exportable = await Promise.all(keys.map((key) =>
    crypto.subtle.exportKey("raw", key).then(() => true, () => false)));
  return { texts, keys: keys.length, exportable: exportable.filter(Boolean).length };
}"""


def test_no_storage_of_the_page_holds_the_code_or_the_site_s_key(
    browser: Browser, synced: Synced
) -> None:
    """The code sat in the host site's localStorage: one script of the site, once, took every
    device's history, future conversations included."""
    laptop = device(browser, synced.chat)
    widget(laptop).send("Kept on the laptop")
    code = show_code(laptop)
    laptop.reload()
    widget(laptop).wait_ready()
    kept = laptop.evaluate(STORED)
    plain = code.replace("-", "")
    assert kept["keys"] >= 2 and kept["exportable"] == 0  # the keys, as CryptoKeys only
    assert not [t for t in kept["texts"] if t and (plain in t.upper().replace("-", ""))]
    open_history(laptop)  # and it still syncs, with nothing of the code on the page
    expect(laptop.get_by_role("status").filter(has_text="Synced")).to_be_visible()

    script = f"document.querySelector('chat-widget').syncKey = {SITE_KEY!r};"
    signed_in = device(browser, synced.chat, script=script)
    widget(signed_in).send("Said while signed in")
    signed_in.get_by_role("button", name="History", exact=True).click()
    expect(signed_in.get_by_role("status").filter(has_text="Synced")).to_be_visible()
    kept = signed_in.evaluate(STORED)
    assert not [t for t in kept["texts"] if t and SITE_KEY in t]
    # The site signs the person out: synced history stops, and their conversations go.
    signed_in.evaluate("document.querySelector('chat-widget').syncKey = ''")
    expect(signed_in.get_by_role("status").filter(has_text="does not sync")).to_be_visible()
    expect(signed_in.get_by_role("listitem")).to_have_count(0)
    assert signed_in.evaluate(STORED)["keys"] == 0
    for page in (laptop, signed_in):
        page.context.close()
