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
                  "chatkeep/static/runtime/pyodide/widget_stdlib.zip",
                  "chatkeep/static/runtime/widget.whl",
                  "chatkeep/static/runtime/pyodide/pyodide.asm.wasm",
                  "chatkeep/static/runtime/pyodide/python_stdlib.zip",
                  "chatkeep/static/runtime/vendor/dompurify.mjs",
                  "chatkeep/templates/index.html", "chatkeep/widget/sessions.py",
                  "chatkeep/testing.py"):  # fmt: skip
        assert asset in names
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
