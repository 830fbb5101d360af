"""Helpers for the downloader tests: a fake Vosk model, archives of it, and a misbehaving HTTP server.

The server is real (``http.server`` on 127.0.0.1, port 0, in a thread) so the
downloader's sockets, Range requests and dropped connections are exercised
for real. The model has one 300 kB file of random bytes, so a download spans
several 64 KiB chunks.
"""

from __future__ import annotations

import gzip
import http.server
import io
import random
import re
import tarfile
import threading
import time
import zipfile

MODEL = "vosk-model-test-0.1"


def model_files(seed: int = 0) -> dict[str, bytes]:
    rng = random.Random(seed)
    return {
        "am/final.mdl": rng.randbytes(300_000),  # incompressible: the archive spans several chunks
        "conf/model.conf": b"--min-active=200\n--beam=13.0\n",
        "conf/mfcc.conf": b"--use-energy=false\n",
        "graph/HCLr.fst": rng.randbytes(3000),
        "graph/Gr.fst": rng.randbytes(3000),
        "graph/disambig_tid.int": b"11\n12\n",
        "graph/phones/word_boundary.int": b"1 nonword\n",
        "ivector/final.ie": rng.randbytes(1000),
        "README": b"a fake model for tests\n",
    }


# A fixed timestamp makes one set of files always the same archive: with the clock's time, two
# archives built a second apart differ, and a test that publishes one md5 and serves the
# other sees a checksum mismatch.
ZIP_TIME = (2024, 1, 1, 0, 0, 0)


def _zip_entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    if name.endswith("/"):
        info.external_attr = (0o40755 << 16) | 0x10  # a folder, as ZipFile.writestr would mark it
    else:
        info.external_attr = 0o600 << 16
    return info


def make_zip(files: dict[str, bytes], prefix: str = MODEL + "/", extra=()) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for folder in sorted({prefix + n.rsplit("/", 1)[0] + "/" for n in files if "/" in n}):
            zf.writestr(_zip_entry(folder), b"")  # Vosk's archives carry folder entries too
        for name, data in files.items():
            zf.writestr(_zip_entry(prefix + name), data)
        for info, data in extra:
            zf.writestr(info, data)
    return buf.getvalue()


def make_tar(files: dict[str, bytes], link: str | None = None) -> bytes:
    buf = io.BytesIO()
    # gzip's header carries a time too: fix it, as for the zip archives
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz, tarfile.open(fileobj=gz, mode="w") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(f"{MODEL}/{name}")
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        if link:
            info = tarfile.TarInfo(f"{MODEL}/am/evil")
            info.type, info.linkname = tarfile.SYMTYPE, link
            tf.addfile(info)
    return buf.getvalue()


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):  # a client hanging up is part of the tests
        pass


class Server:
    """Serves ``files`` with Range support; the attributes below make it misbehave."""

    def __init__(self):
        self.files: dict[str, bytes] = {}
        self.requests: list[tuple[str, str | None]] = []  # (path, Range header)
        self.statuses: list[int] = []
        self.drop_after: int | None = None  # next response: send this many body bytes, then hang up
        self.ignore_range = False
        self.redirect: str | None = None
        self.delay_s = 0.0  # pause after each 64 KiB, to make a download last
        self.httpd = _QuietServer(("127.0.0.1", 0), self._handler())
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/{name}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _handler(self):
        srv = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                srv.requests.append((self.path, self.headers.get("Range")))
                data = srv.files.get(self.path.lstrip("/"))
                if srv.redirect:
                    return self._head(302, {"Location": srv.redirect})
                if data is None:
                    return self._head(404, {"Content-Length": "0"})
                start = 0
                m = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or "")
                if m and not srv.ignore_range:
                    start = int(m[1])
                    if start >= len(data):
                        return self._head(416, {"Content-Range": f"bytes */{len(data)}"})
                    self._head(
                        206,
                        {
                            "Content-Range": f"bytes {start}-{len(data) - 1}/{len(data)}",
                            "Content-Length": str(len(data) - start),
                        },
                        end=False,
                    )
                else:
                    self._head(200, {"Content-Length": str(len(data))}, end=False)
                self.end_headers()
                body = data[start:]
                drop, srv.drop_after = srv.drop_after, None
                if drop is not None:
                    body = body[:drop]
                try:
                    for i in range(0, len(body), 65536):
                        self.wfile.write(body[i : i + 65536])
                        time.sleep(srv.delay_s)
                except OSError:
                    pass  # the client cancelled
                self.close_connection = True

            def _head(self, status, headers, end=True):
                srv.statuses.append(status)
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                if end:
                    self.end_headers()

        return Handler


def fake_model(root, layout="v2"):
    """Just the files ``layout.model_problems`` looks for: enough for folder checks, not for libvosk."""
    names = {
        "v2": ["am/final.mdl", "conf/model.conf", "conf/mfcc.conf", "graph/HCLG.fst"],
        "v1": ["final.mdl", "mfcc.conf", "HCLr.fst", "Gr.fst", "disambig_tid.int"],
        "no-graph": ["am/final.mdl", "conf/model.conf", "conf/mfcc.conf"],
    }[layout]
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"x")
    return root
