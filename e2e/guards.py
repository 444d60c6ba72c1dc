"""A page guarded against what hostile content would do: a dialog opened, or a request to a
host other than the server's (each aborted, and recorded)."""

from __future__ import annotations

from urllib.parse import urlparse

from playwright.sync_api import Page, Route

#: dialogs replaced by a record of their calls (`window.__ran`)
TRAPS = """
window.__ran = [];
for (const name of ['alert', 'confirm', 'prompt', 'print']) {
  window[name] = (...args) => { window.__ran.push([name, String(args[0])]); };
}
"""


def guard(page: Page) -> list[str]:
    """Traps dialogs and records every request to a host other than the server's."""
    page.add_init_script(TRAPS)
    outside: list[str] = []
    page.on("dialog", lambda dialog: (outside.append("dialog " + dialog.message), dialog.dismiss()))

    def watch(route: Route) -> None:
        host = urlparse(route.request.url).hostname
        if host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", watch)
    return outside
