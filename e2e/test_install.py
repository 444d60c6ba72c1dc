"""The built wheel, installed as a stranger would: a fresh virtualenv, pip, `chatkeep serve`."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from pages import BOOT_TIMEOUT, READY, log
from playwright.sync_api import Page, expect
from servers import ROOT, ChatkeepServer

pytestmark = pytest.mark.slow


def built_wheel() -> Path:
    wheels = sorted((ROOT / "dist").glob("chatkeep-*-py3-none-any.whl"))
    if not wheels:
        pytest.fail('no wheel in dist/: run "make dist" (make test does) first')
    return wheels[-1]


def test_the_wheel_adds_one_top_level_package_with_every_asset() -> None:
    with zipfile.ZipFile(built_wheel()) as wheel:
        names = wheel.namelist()
    top_level = {
        name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")
    }
    assert top_level == {"chatkeep"}
    for asset in ("chatkeep/static/chat-widget.js", "chatkeep/static/worker.js",
                  "chatkeep/static/i18n/en.js", "chatkeep/static/i18n/de.js",
                  "chatkeep/static/service-worker.js", "chatkeep/static/codec.js",
                  "chatkeep/static/runtime/pyodide/widget_python.zip",
                  "chatkeep/static/runtime/pyodide/pyodide.asm.wasm",
                  "chatkeep/static/runtime/pyodide/python_stdlib.zip",
                  "chatkeep/static/runtime/vendor/dompurify.mjs",
                  "chatkeep/static/runtime/vendor/katex.mjs", "chatkeep/static/math.js",
                  "chatkeep/scripted_model.py", "chatkeep/page_object.py",
                  "chatkeep/templates/index.html", "chatkeep/widget/sessions.py",
                  "chatkeep/testing.py"):  # fmt: skip
        assert asset in names
    assert "chatkeep/static/runtime/widget.whl" not in names  # in widget_python.zip instead
    assert not [name for name in names if "node_modules" in name]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [venv / "bin" / "python", "-m", "pip", "install", "--quiet", built_wheel()],
        check=True,
        timeout=300,
    )
    yield venv


def test_chatkeep_serve_from_a_fresh_virtualenv_chats_in_chromium(
    page: Page, installed: Path
) -> None:
    with ChatkeepServer(command=[str(installed / "bin" / "chatkeep"), "serve"]) as server:
        page.goto(server.url + "/")
        page.wait_for_function(
            READY,
            timeout=BOOT_TIMEOUT,
        )
        page.get_by_role("textbox", name="Message").fill("My name is Grace")
        page.get_by_role("button", name="Send").click()
        expect(log(page).locator("article[data-role=assistant]")).to_contain_text("Grace")
    location = subprocess.run(
        [installed / "bin" / "python", "-c", "import chatkeep; print(chatkeep.__file__)"],
        capture_output=True, text=True, check=True, cwd=installed,
    )  # fmt: skip
    assert str(installed) in location.stdout


# The stranger's own conftest.py: Chromium as this machine has it (Debian's, no sandbox).
STRANGERS_CONFTEST = """
import os
import pytest
from chatkeep.testing import CHROMIUM_FLAGS

@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    args = {**browser_type_launch_args, "args": list(CHROMIUM_FLAGS)}
    if os.path.exists("/usr/bin/chromium"):
        args["executable_path"] = "/usr/bin/chromium"
    return args
"""
# ... and an expectation of theirs that does not hold: its failure must say what it saw.
STRANGERS_FAILING_TEST = """
from chatkeep.testing import ChatWidget
from test_plugin_example import chat  # noqa: F401 (the README's fixture)

def test_an_answer_that_never_comes(chat, chatkeep_model):
    chatkeep_model.reply("We are open from nine to five.")
    chat.send("When are you open?")
    chat.expect_answer("open all night", timeout=1_000)
"""


def test_a_stranger_s_page_tests_run_on_the_kit_from_a_fresh_virtualenv(
    installed: Path, tmp_path: Path
) -> None:
    """The README's example with pytest-playwright: scripted answers, the demo model after
    them, a scripted failure shown as an alert, a tool call whose result reaches the next
    request, and an expectation that does not hold, failing with what was on screen."""
    subprocess.run(
        [installed / "bin" / "python", "-m", "pip", "install", "--quiet", "pytest-playwright"],
        check=True, timeout=600,
    )  # fmt: skip
    (tmp_path / "conftest.py").write_text(STRANGERS_CONFTEST)
    (tmp_path / "test_plugin_example.py").write_text(
        (ROOT / "e2e" / "test_plugin_example.py").read_text()
    )
    (tmp_path / "test_failing.py").write_text(STRANGERS_FAILING_TEST)
    run = subprocess.run(
        [installed / "bin" / "python", "-m", "pytest", "-p", "no:cacheprovider", "-q"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    output = run.stdout + run.stderr
    assert "1 failed, 4 passed" in output, output[-3000:]
    assert "expected the newest answer to contain 'open all night' within 1 s" in output
    assert "assistant: We are open from nine to five." in output
