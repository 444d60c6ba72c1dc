"""The engines of the cross-engine journey, each behind one small interface: open a URL,
reload, run a script in the page (the journey's steps, e2e/engines/journey.js) and get its
result. Chromium through Playwright; Firefox through puppeteer-core over WebDriver BiDi
(e2e/engines/firefox.mjs, a Node process); WebKit through Selenium and WebKitGTK's
WebDriver, with MiniBrowser on a virtual display (Xvfb)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, Protocol

HERE = Path(__file__).resolve().parent
JOURNEY = (HERE / "engines" / "journey.js").read_text()
FIREFOX = "/usr/bin/firefox-esr"
WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"
MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
TIMEOUT = 90


class Driver(Protocol):
    def goto(self, url: str) -> None: ...
    def reload(self) -> None: ...
    def evaluate(self, expression: str) -> Any: ...
    def step(self, name: str, *args: Any) -> Any: ...
    def close(self) -> None: ...


def missing(engine: str) -> str | None:
    """Why `engine` cannot run here (None: it can)."""
    if engine == "firefox":
        if not Path(FIREFOX).exists():
            return "firefox-esr is not installed (make test installs it)"
        if not (HERE.parent / "static/node_modules/puppeteer-core").is_dir():
            return "puppeteer-core is not installed (make test installs it)"
    if engine == "webkit":
        if not (Path(WEBKIT_DRIVER).exists() and Path(MINIBROWSER).exists()):
            return "webkit2gtk-driver is not installed (make test installs it)"
        if shutil.which("Xvfb") is None:
            return "Xvfb is not installed (make test installs xvfb)"
    return None


def call(name: str, args: tuple[Any, ...]) -> str:
    """A script that defines the journey and runs one step, resolving to its result."""
    return f"(async () => {{ {JOURNEY}\n return await journey.{name}(...{json.dumps(args)}); }})()"


class FirefoxDriver:
    def __init__(self) -> None:
        # Firefox writes much to stderr: into a file, never a pipe nobody reads (it would fill
        # and stall the browser).
        self.log = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed in `close`)
        self.process = subprocess.Popen(
            ["node", str(HERE / "engines" / "firefox.mjs")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True,
        )  # fmt: skip
        self.version = self._answer()["ready"]

    def _answer(self) -> Any:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            self.log.seek(0)
            raise RuntimeError(f"Firefox's driver ended: {self.log.read()[-2000:]}")
        return json.loads(line)

    def _send(self, command: dict[str, Any]) -> Any:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        answer = self._answer()
        if "error" in answer:
            raise AssertionError(f"in Firefox: {answer['error']}")
        return answer["result"]

    def goto(self, url: str) -> None:
        self._send({"goto": url})

    def reload(self) -> None:
        self._send({"reload": True})

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (awaited if a promise)."""
        return self._send({"run": expression})

    def step(self, name: str, *args: Any) -> Any:
        return self.evaluate(call(name, args))

    def close(self) -> None:
        with contextlib.suppress(OSError):  # no answer comes: the driver closes Firefox
            assert self.process.stdin is not None
            self.process.stdin.write(json.dumps({"close": True}) + "\n")
            self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.log.close()


class WebKitDriver:
    def __init__(self) -> None:
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service

        self.display = f":{200 + os.getpid() % 500}"
        self.xvfb = subprocess.Popen(
            ["Xvfb", self.display, "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_for_display(self.display, self.xvfb)
        options = Options()
        options.binary_location = MINIBROWSER
        options.add_argument("--automation")
        service = Service(
            executable_path=WEBKIT_DRIVER, env={**os.environ, "DISPLAY": self.display}
        )
        with warnings.catch_warnings():  # Selenium's own WebKitGTK class uses its deprecated API
            warnings.simplefilter("ignore", DeprecationWarning)
            self.driver = webdriver.WebKitGTK(options=options, service=service)
        self.driver.set_script_timeout(TIMEOUT)
        self.driver.set_page_load_timeout(TIMEOUT)
        self.version = self.driver.capabilities.get("browserVersion", "")

    def goto(self, url: str) -> None:
        self.driver.get(url)

    def reload(self) -> None:
        self.driver.refresh()

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (awaited if a promise)."""
        script = ("const done = arguments[arguments.length - 1];"
                  f"Promise.resolve({expression}).then((r) => done({{result: r}}), "
                  "(e) => done({error: String(e && e.message || e)}));")  # fmt: skip
        answer = self.driver.execute_async_script(script)
        if "error" in answer:
            raise AssertionError(f"in WebKit: {answer['error']}")
        return answer.get("result")

    def step(self, name: str, *args: Any) -> Any:
        return self.evaluate(call(name, args))

    def close(self) -> None:
        try:
            self.driver.quit()
        finally:
            self.xvfb.terminate()
            self.xvfb.wait(10)


class ChromiumDriver:
    """Playwright's page, for the same journey in the third engine."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.version = page.context.browser.version

    def goto(self, url: str) -> None:
        self.page.goto(url)

    def reload(self) -> None:
        self.page.reload()

    def evaluate(self, expression: str) -> Any:
        return self.page.evaluate(expression)

    def step(self, name: str, *args: Any) -> Any:
        return self.evaluate(call(name, args))

    def close(self) -> None:
        pass


def wait_for_display(display: str, xvfb: subprocess.Popen[bytes], seconds: float = 20) -> None:
    """Until Xvfb listens on `display` (its socket is there), or it has failed or not come."""
    socket = Path("/tmp/.X11-unix") / f"X{display.lstrip(':')}"
    deadline = time.monotonic() + seconds
    while not socket.exists():
        if xvfb.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"Xvfb did not start on {display}")
        time.sleep(0.02)
