"""Resumable HTTPS download into a ``.part`` file, and size/md5 verification.

A 2 GB model on a flaky connection must not start from zero after every
drop, so bytes go to a ``.part`` file and a retry asks only for the rest with
an HTTP ``Range`` request. Servers may ignore ``Range`` (RFC 9110 allows it)
and answer 200 with the whole file: then we start over instead of appending.
"""

from __future__ import annotations

import hashlib
import http.client
import ipaddress
import logging
import os
import re
import socket
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

from engine.vosk_models.errors import (
    ChecksumError,
    DownloadCancelled,
    DownloadError,
    DownloadInterrupted,
    HttpError,
    InsecureUrlError,
    OfflineError,
    storage_error,
)

log = logging.getLogger(__name__)

CHUNK = 64 * 1024
TIMEOUT_S = 30.0  # per socket operation, not for the whole download
RETRIES = 2  # automatic resumes after a dropped connection, per call
RETRY_DELAY_S = 1.0  # grows linearly with the attempt number
USER_AGENT = "livecap-model-downloader/1"

Progress = Callable[[int, int | None], None]  # (done_bytes, total_bytes or None)
Cancel = threading.Event | Callable[[], bool] | None


def check_url(url: str) -> None:
    """Allow https; allow plain http only to this machine's loopback interface.

    A model archive is parsed by a native library, so it must not be swappable
    in transit. Loopback traffic never leaves the machine, so there is no
    network path to tamper with, and allowing it lets the tests run a real
    HTTP server without TLS certificates.
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return
    if parts.scheme == "http" and is_loopback(parts.hostname):
        return
    if parts.scheme == "http":
        raise InsecureUrlError(
            f"Refusing to download {url} over plain http: anyone on the network "
            "could swap the archive. Use an https:// URL."
        )
    raise InsecureUrlError(f"Cannot download {url!r}: only https:// URLs are supported.")


def is_loopback(host: str | None) -> bool:
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def cancel_fn(cancel: Cancel) -> Callable[[], bool]:
    """Accept a ``threading.Event`` or a callable; return a callable."""
    if cancel is None:
        return lambda: False
    return cancel.is_set if hasattr(cancel, "is_set") else cancel


def fetch(
    url: str,
    part: str | os.PathLike[str],
    *,
    expected_size: int | None = None,
    progress: Progress | None = None,
    cancel: Cancel = None,
    timeout: float = TIMEOUT_S,
    retries: int = RETRIES,
) -> Path:
    """Download ``url`` into ``part``, resuming what ``part`` already holds. Returns ``part``.

    Resumes automatically up to ``retries`` times when the connection drops;
    after that raises ``DownloadInterrupted`` and keeps ``part``. A size
    mismatch deletes ``part`` and raises ``ChecksumError``.
    """
    check_url(url)
    part, cancelled = Path(part), cancel_fn(cancel)
    try:
        part.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise storage_error(exc, part.parent) from exc
    for attempt in range(retries + 1):
        try:
            _fetch_once(url, part, expected_size, progress, cancelled, timeout)
            return part
        except ChecksumError:
            part.unlink(missing_ok=True)
            raise
        except DownloadInterrupted as exc:
            if attempt == retries:
                raise
            log.info("%s; resuming (attempt %d of %d)", exc, attempt + 2, retries + 1)
            time.sleep(RETRY_DELAY_S * (attempt + 1))
    raise AssertionError("unreachable")


def _fetch_once(
    url: str,
    part: Path,
    expected: int | None,
    progress: Progress | None,
    cancelled: Callable[[], bool],
    timeout: float,
) -> None:
    have = part.stat().st_size if part.exists() else 0
    if expected is not None and have > expected:
        part.unlink()  # longer than the file can be: not a prefix of it
        have = 0
    if expected is not None and have == expected and have:
        _report(progress, have, expected)  # complete already; verification decides if it is right
        return
    if cancelled():
        raise DownloadCancelled("Download cancelled.")
    response = _open(url, part, have, timeout)
    if response is None:
        return  # the server says our .part already holds the whole file
    with response:
        if response.status == 206:
            start, total = _content_range(response.headers.get("Content-Range", ""))
            if start != have:
                part.unlink(missing_ok=True)
                raise DownloadInterrupted("The server resumed at the wrong offset; starting over")
            mode, done = "ab", have
        else:  # 200: the server ignored Range, so the body is the whole file
            total, mode, done = _int(response.headers.get("Content-Length")), "wb", 0
        if expected is not None and total is not None and total != expected:
            raise ChecksumError(
                f"Size mismatch for {url}: the server has {total} bytes, the catalogue expects {expected}."
            )
        total = expected if expected is not None else total
        try:
            out = open(part, mode)
        except OSError as exc:
            raise storage_error(exc, part.parent) from exc
        with out:
            _report(progress, done, total)
            while True:
                if cancelled():
                    raise DownloadCancelled(f"Download cancelled; it will resume from byte {done}.")
                try:
                    chunk = response.read(CHUNK)
                except (OSError, http.client.HTTPException) as exc:
                    raise DownloadInterrupted(f"Connection lost after {done} bytes ({exc})") from exc
                if not chunk:
                    break
                if total is not None and done + len(chunk) > total:
                    raise ChecksumError(
                        f"Size mismatch for {url}: the server sent more than the {total} bytes expected."
                    )
                try:
                    out.write(chunk)
                except OSError as exc:
                    raise storage_error(exc, part.parent) from exc
                done += len(chunk)
                _report(progress, done, total)
    if total is not None and done < total:
        # http.client returns b"" when a server closes early; it does not raise.
        raise DownloadInterrupted(f"Connection closed after {done} of {total} bytes")


def _open(url: str, part: Path, have: int, timeout: float):  # -> http.client.HTTPResponse | None
    request = urllib.request.Request(
        url,
        headers={
            "User-Agent": USER_AGENT,
            # byte offsets only mean something uncompressed
            "Accept-Encoding": "identity",
        },
    )
    if have:
        request.add_header("Range", f"bytes={have}-")
    try:
        return _opener(url).open(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        exc.close()
        if exc.code == 416 and have:  # our .part reaches (or passes) the end of the file
            if _content_range(exc.headers.get("Content-Range", ""))[1] == have:
                return None
            part.unlink(missing_ok=True)
            raise DownloadInterrupted("The server could not resume the download; starting over") from exc
        hint = " The model may have been moved or withdrawn upstream." if exc.code in (404, 410) else ""
        raise HttpError(f"The server answered {exc.code} {exc.reason} for {url}.{hint}", exc.code) from exc
    except urllib.error.URLError as exc:
        raise _network_error(url, exc.reason) from exc
    except (OSError, http.client.HTTPException) as exc:
        raise _network_error(url, exc) from exc


class _CheckedRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001 (urllib's signature)
        check_url(newurl)  # an https -> http redirect would silently drop TLS
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _opener(url: str) -> urllib.request.OpenerDirector:
    handlers: list[urllib.request.BaseHandler] = [_CheckedRedirects()]
    if is_loopback(urllib.parse.urlsplit(url).hostname):
        # A configured http_proxy must not receive loopback requests: it cannot reach them.
        handlers.append(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener(*handlers)


def _content_range(value: str) -> tuple[int | None, int | None]:
    """``bytes 100-199/200`` -> (100, 200); ``bytes */200`` -> (None, 200)."""
    m = re.fullmatch(r"\s*bytes\s+(?:(\d+)-\d+|\*)/(\d+|\*)\s*", value or "")
    if not m:
        return None, None
    start, total = m.groups()
    return (int(start) if start else None), (int(total) if total != "*" else None)


def _int(value: str | None) -> int | None:
    return int(value) if value and value.strip().isdigit() else None


def _network_error(url: str, reason: object) -> DownloadError:
    host = urllib.parse.urlsplit(url).hostname
    if isinstance(reason, ssl.SSLError):  # first: SSLError is an OSError too
        return DownloadError(
            f"The secure connection to {host} failed ({reason}). A captive portal "
            "or an intercepting proxy can cause this."
        )
    if isinstance(reason, socket.gaierror):
        what = "could not be found (no network, or DNS is down)"
    elif isinstance(reason, ConnectionRefusedError):
        what = "refused the connection"
    elif isinstance(reason, TimeoutError):
        what = "did not answer in time"
    elif isinstance(reason, OSError):
        what = f"could not be reached ({reason})"
    else:
        return DownloadError(f"Could not download from {host}: {reason}")
    return OfflineError(
        f"{host} {what}. Check your internet connection and try again; the download resumes where it stopped."
    )


def _report(progress: Progress | None, done: int, total: int | None) -> None:
    if progress is not None:
        progress(done, total)


def verify(path: str | os.PathLike[str], size: int | None, md5: str | None, cancel: Cancel = None) -> None:
    """Raise ``ChecksumError`` unless ``path`` has ``size`` bytes and the md5 ``md5`` (each if given)."""
    path, cancelled = Path(path), cancel_fn(cancel)
    got_size = path.stat().st_size
    if size is not None and got_size != size:
        raise ChecksumError(f"Size mismatch for {path.name}: expected {size} bytes, got {got_size}.")
    if md5:
        digest = hashlib.md5(usedforsecurity=False)  # an integrity check, not a signature
        with open(path, "rb") as f:
            while block := f.read(1 << 20):
                if cancelled():
                    raise DownloadCancelled("Cancelled while checking the download.")
                digest.update(block)
        if digest.hexdigest() != md5.lower():
            raise ChecksumError(
                f"Checksum mismatch for {path.name}: expected md5 {md5.lower()}, got {digest.hexdigest()}."
            )
