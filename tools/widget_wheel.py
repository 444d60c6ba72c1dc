"""Write the pure-Python wheel of the `widget` package that the browser's Pyodide loads.

The repository's `pyproject.toml` describes the `chatkeep` distribution (server, widget and
assets, for pip); the worker needs only the session logic, as a wheel of its own with `widget`
at its top level. A wheel is a zip with three metadata files, so it is written here directly:
no second project file, and the same bytes for the same sources.

    python tools/widget_wheel.py OUT_DIR VERSION
"""

from __future__ import annotations

import base64
import hashlib
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = "chatkeep_widget"
FIXED_TIME = (2020, 1, 1, 0, 0, 0)


def record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def build(out_dir: Path, version: str) -> Path:
    files = {
        f"widget/{source.relative_to(ROOT / 'widget').as_posix()}": source.read_bytes()
        for source in sorted((ROOT / "widget").rglob("*.py"))
    }
    info = f"{NAME}-{version}.dist-info"
    files[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\n"
        "Summary: Chatkeep's session logic, for Pyodide\nRequires-Python: >=3.12\n"
    ).encode()
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: chatkeep tools/widget_wheel.py\n"
        b"Root-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = [record_line(path, data) for path, data in files.items()]
    files[f"{info}/RECORD"] = ("\n".join([*record, f"{info}/RECORD,,"]) + "\n").encode()
    out_dir.mkdir(parents=True, exist_ok=True)
    wheel = out_dir / f"{NAME}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            archive.writestr(zipfile.ZipInfo(path, FIXED_TIME), data, zipfile.ZIP_DEFLATED)
    return wheel


if __name__ == "__main__":
    print(build(Path(sys.argv[1]), sys.argv[2]))
