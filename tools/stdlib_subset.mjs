// Writes the Python the worker boots, `widget_python.zip`: the standard library's modules the
// widget imports, from Pyodide's py-compiled `python_stdlib.zip` (4 MB, most of it never used
// by the widget), and the widget's own modules, from its py-compiled wheel. Pyodide mounts it as
// its standard library, so the widget imports from it with nothing fetched or unpacked besides
// (in WebKit, unpacking the wheel took ~180 ms of a first visit, and importing from the zip is
// faster than from unpacked files). `tests/widget/test_python_zip.py` fails when a module
// the widget imports is missing from it.
//
// Its files are stored, not deflated, and the server sends the zip gzip-compressed (the
// Makefile writes `widget_python.zip.gz`): the browser then inflates it natively while it
// downloads, where Python would inflate every module it imports in WebAssembly, as it starts.
// A first visit in Chromium, two A/Bs of 7: 1.36x -> 1.17x and 1.28x -> 1.05x of bare
// Pyodide; and the bytes sent are 6 % fewer.
//
//   node tools/stdlib_subset.mjs static/runtime build/widget.whl
//
// What is kept: every module loaded once Python has started, imported the widget and run a
// conversation through it (a turn with a tool, storing, export and import, a failure's
// traceback), plus whole packages that load their parts by name at run time, and the text
// codecs a page may name.
//
// Then `pdf/pdf_stdlib.zip`: the modules reading a PDF with pypdf (runtime/pdf/pypdf.whl)
// loads on top of those (a PDF read, one with a password tried) and every text codec pypdf's
// code names, fetched with pypdf only when a person attaches a PDF (static/pdf-reader.js).

import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const WHOLE_PACKAGES = ["pyodide", "_pyodide", "json", "collections", "re"];
// Text codecs a page may name (the rest of `encodings` is legacy code pages).
const CODECS = ["utf_8", "utf_8_sig", "utf_16", "utf_32", "latin_1", "ascii", "aliases"];

const runtime = resolve(process.argv[2] ?? "static/runtime");
const wheel = new Uint8Array(readFileSync(resolve(process.argv[3] ?? "build/widget.whl")));
const pyodideDir = join(runtime, "pyodide");
const { loadPyodide } = await import(join(pyodideDir, "pyodide.mjs"));
const pyodide = await loadPyodide({ indexURL: `${pyodideDir}/`, stdLibURL: join(pyodideDir, "python_stdlib.zip") });
const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
pyodide.unpackArchive(wheel, "wheel", { extractDir: sitePackages });
pyodide.FS.writeFile("/tmp/widget.whl", wheel);
pyodide.FS.mkdirTree("/out");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: runtime }, "/out");
pyodide.globals.set("whole_packages", pyodide.toPy(WHOLE_PACKAGES));
pyodide.globals.set("codecs", pyodide.toPy(CODECS));

const kept = pyodide.runPython(`
import sys, traceback, types
import widget.precompiled
precompiled = widget.precompiled.recording()  # every record's methods, as the widget makes them
import widget.bridge, widget.compression, widget.sources, widget.sync.rounds, widget.sync.codes
from widget import Session, read_snapshot
from widget.changes import ChangeFeed
from widget.conversations import Conversations
from widget.history import History
from widget.key_value import MemoryKeyValue


def drive(coroutine):
    try:
        while True:
            coroutine.send(None)
    except StopIteration as done:
        return done.value


class Model:
    def __init__(self):
        self.asked = 0

    async def complete(self, request):
        self.asked += 1
        if self.asked == 1:
            call = {"index": 0, "id": "c1", "type": "function",
                    "function": {"name": "clock", "arguments": "{}"}}
            yield [{"choices": [{"index": 0, "delta": {"tool_calls": [call]},
                                 "finish_reason": "tool_calls"}]}]
        else:
            yield [{"choices": [{"index": 0, "delta": {"content": "Noon, Ünïcode ✓"},
                                 "finish_reason": "stop"}]}]

    async def resume(self, turn):
        yield []

    def cancel(self):
        pass


def clock() -> str:
    """The time."""
    return "noon"


session = Session(tools=[clock])
ChangeFeed(session.conversation, lambda kind, data: None, lambda at, text, calls: None)
chat = Conversations(session, History(MemoryKeyValue()), Model())
drive(chat.keeper.start())
drive(chat.send("What time is it?"))
exported = drive(chat.export_all())
drive(chat.import_all(exported))
read_snapshot(session.export_snapshot())
widget.compression.inflate(widget.compression.deflate(b"x" * 100))
widget.sources.is_safe_link("https://example.com/cited")  # an answer citing its sources
widget.sources.is_safe_link("http://[2001:db8::1]/")  # ... at an IPv6 address (ipaddress)
widget.sources.is_safe_link("https://bücher.example/")  # ... at a name in another script (idna)
widget.sources.is_safe_link("https://xn--bcher-kva.example/")  # ... spelled in Punycode
try:
    drive(chat.rename(session.conversation.id, " "))
except Exception as exc:
    "".join(traceback.format_exception(exc))

import copy
import marshal
import zipfile

STDLIB = "/lib/python313.zip"


def loaded_from_stdlib():
    """The standard library's files that the modules loaded so far came from."""
    origins = (getattr(getattr(module, "__spec__", None), "origin", None) or ""
               for module in list(sys.modules.values()))
    return {origin[len(STDLIB) + 1:] for origin in origins if origin.startswith(STDLIB + "/")}


def write_subset(names, path, every, compression=zipfile.ZIP_DEFLATED):
    """Writes \`names\` of the standard library, each with its packages up to the top, to \`path\`."""
    for name in list(names):
        parts = name.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            init = "/".join(parts[:depth]) + "/__init__.pyc"
            if init in every:
                names.add(init)
    with zipfile.ZipFile(STDLIB) as full, zipfile.ZipFile(path, "w", compression) as subset:
        for info in full.infolist():
            if info.filename in names:
                subset.writestr(stored_as(info, compression), full.read(info.filename))
    return names


SITECUSTOMIZE = """
# Run by Python as it starts: modules are read from this zip once each (widget/zip_import.py).
import widget.zip_import
widget.zip_import.install()
"""


def compiled_module(source, name):
    """A .pyc of \`source\` for this Python, with no source beside it to be checked against."""
    from importlib.util import MAGIC_NUMBER
    code = compile(source, f"{STDLIB}/{name}.py", "exec", dont_inherit=True)
    return MAGIC_NUMBER + bytes(12) + marshal.dumps(code)


def stored_as(info, compression):
    """The same entry (name, time, attributes), written with \`compression\`."""
    info = copy.copy(info)
    info.compress_type = compression
    return info


names = loaded_from_stdlib()
with zipfile.ZipFile(STDLIB) as full:
    every = set(full.namelist())
for package in whole_packages:
    names.update(n for n in every if n.startswith(package + "/") and not n.endswith("/"))
names.update(f"encodings/{codec}.pyc" for codec in codecs)
kept = len(write_subset(names, "/out/pyodide/widget_python.zip", every, zipfile.ZIP_STORED))
with zipfile.ZipFile("/tmp/widget.whl") as wheel, zipfile.ZipFile("/out/pyodide/widget_python.zip", "a") as python:
    for info in wheel.infolist():
        if info.filename.startswith("widget/"):
            python.writestr(stored_as(info, zipfile.ZIP_STORED), wheel.read(info))
            kept += 1
    # beside the modules: their records' methods, compiled (widget/precompiled.py)
    shipped = zipfile.ZipInfo(f"widget/{widget.precompiled.SHIPPED}", wheel.getinfo("widget/__init__.pyc").date_time)
    python.writestr(shipped, marshal.dumps(precompiled))
    kept += 1
    # Python imports \`sitecustomize\` as it starts (site.py), before Pyodide's own start imports
    # about 115 modules from this zip: from then on each is read from it once (widget/zip_import.py).
    python.writestr(zipfile.ZipInfo("sitecustomize.pyc", shipped.date_time), compiled_module(SITECUSTOMIZE, "sitecustomize"))
    kept += 1
kept
`);
console.log(`widget_python.zip: ${kept} files`);

// What reading a PDF loads besides: the widget's modules are in memory already.
pyodide.unpackArchive(new Uint8Array(readFileSync(join(runtime, "pdf", "pypdf.whl"))), "wheel", { extractDir: sitePackages });
const samples = pyodide.toPy({ __name__: "sample_pdf" });
pyodide.runPython(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "sample_pdf.py"), "utf8"), { globals: samples });
for (const name of ["sample_pdf", "locked_pdf"]) pyodide.globals.set(name, samples.get(name));
pyodide.globals.set("site_packages", sitePackages);
const added = pyodide.runPython(`
import codecs, encodings, marshal, pathlib
import widget.pdf_text
from encodings.aliases import aliases

widget.pdf_text.pdf_text(sample_pdf("Hello", "world"), "a.pdf")
for data in (locked_pdf("Secret", "password"), b"not a PDF"):
    try:
        widget.pdf_text.pdf_text(data, "b.pdf")
    except widget.pdf_text.PdfUnreadable:
        pass


def text_codecs_named(folder):
    """The codec modules of every text encoding the compiled code in folder names: pypdf
    decodes a PDF's strings and fonts by name (UTF-16BE, Windows and Mac code pages, CJK ones),
    each only when a PDF needs it, so one the sample PDFs never needed would be missing."""
    strings = set()

    def constants(code):
        for value in code.co_consts:
            if isinstance(value, type(code)):
                constants(value)
            elif isinstance(value, (tuple, frozenset)):
                strings.update(item for item in value if isinstance(item, str))
            elif isinstance(value, str):
                strings.add(value)

    for path in pathlib.Path(folder).rglob("*.pyc"):
        constants(marshal.loads(path.read_bytes()[16:]))
    modules = set()
    for name in strings:
        try:
            text = codecs.lookup(name)._is_text_encoding
        except (LookupError, TypeError, ValueError):
            continue
        if text:
            normal = encodings.normalize_encoding(name.lower())
            modules.add(f"encodings/{aliases.get(normal, normal)}.pyc")
    return modules & every


pdf_codecs = text_codecs_named(f"{site_packages}/pypdf")
# The packages already in widget_python.zip stay out (their modules are added to them).
sorted(write_subset((loaded_from_stdlib() | pdf_codecs) - names, "/out/pdf/pdf_stdlib.zip", every - names))
`).toJs();
console.log(`pdf_stdlib.zip: ${added.length} files (${added.join(", ")})`);
