"""Streaming multipart parsing for `POST /api/v1/rename`, with the size limit enforced while reading.

`read_upload(request, max_bytes)` decides 413 from `Content-Length` before reading anything, then
counts the file's bytes as they arrive and stops at the first byte over the limit; the body is
never buffered whole. File data goes to a `SpooledTemporaryFile` (memory up to 1 MiB, then
disk). The parser is python-multipart's streaming `MultipartParser`.

Rules (DESIGN.md, "Choices"): a body that is not multipart (JSON, say), a file part not named
`file`, a file part without filename or content type, or a broken body is a 400 with code
`INVALID_MULTIPART_PAYLOAD`; no file part at all is a 400 saying no file was uploaded.
"""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass, field
from typing import IO

from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import ClientDisconnect, Request

from renamerd.api.errors import ApiError
from renamerd.engine.cleaning import clean_filename

#: bytes a request may carry besides the file (boundaries, headers, option fields)
BODY_OVERHEAD = 1024 * 1024
#: longest text field (customTemplate instructions included)
MAX_FIELD_BYTES = 64 * 1024
SPOOL_MEMORY = 1024 * 1024
INVALID = "INVALID_MULTIPART_PAYLOAD"


@dataclass
class Upload:
    """A parsed rename upload. `file` is positioned at 0; close it (or `close()`) when done."""

    filename: str
    content_type: str
    file: IO[bytes]
    size: int
    sha256: str
    fields: dict[str, str] = field(default_factory=dict)

    def read(self) -> bytes:
        self.file.seek(0)
        return self.file.read()

    def close(self) -> None:
        self.file.close()


def too_large(max_bytes: int) -> ApiError:
    mb = f"{max_bytes / (1024 * 1024):.2f}".rstrip("0").rstrip(".")
    return ApiError(413, f"file too large: the limit is {mb} MB", "PAYLOAD_TOO_LARGE")


def safe_filename(name: str) -> str:
    """The last path segment of a client-supplied name, cleaned like the engine's
    `originalFilename` (no control or format characters, at most 255 UTF-8 bytes, extension
    kept); "document" when nothing is left or only dots are ("..", a path's part). Pure."""
    name = clean_filename(name.replace("\\", "/").rsplit("/", 1)[-1])
    return name if name.strip(". ") else "document"


def multipart_boundary(content_type: str) -> bytes:
    """The boundary of a multipart/form-data Content-Type; ApiError(400) for anything else."""
    ctype, params = parse_options_header(content_type)
    if ctype != b"multipart/form-data":
        shown = ctype.decode("latin-1") or "none"
        raise ApiError(
            400, f"the body must be multipart/form-data with the document in a field named 'file' "
            f"(got Content-Type {shown})", INVALID,
        )
    boundary = params.get(b"boundary", b"")
    if not boundary or len(boundary) > 200:
        raise ApiError(400, "multipart body without a valid boundary", INVALID)
    return boundary


def check_content_length(request: Request, max_bytes: int) -> None:
    """413 when the declared body size is over the limit plus the multipart overhead."""
    declared = request.headers.get("content-length")
    if declared is None:
        return
    try:
        length = int(declared)
    except ValueError as err:
        raise ApiError(400, "invalid Content-Length header", "INVALID_REQUEST") from err
    if length > max_bytes + BODY_OVERHEAD:
        raise too_large(max_bytes)


class _Collector:
    """Callbacks for MultipartParser: one file part (named `file`) and small text fields."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.headers: dict[str, bytes] = {}
        self._hname = b""
        self._hvalue = b""
        self.fields: dict[str, str] = {}
        self.file: IO[bytes] | None = None
        self.filename = ""
        self.content_type = ""
        self.size = 0
        self.digest = hashlib.sha256()
        self._current: str | None = None  # "file" | field name | "" (ignored)
        self._field_buf = bytearray()
        self.ended = False

    def callbacks(self) -> dict[str, object]:
        return {
            "on_part_begin": self.on_part_begin,
            "on_header_field": lambda d, s, e: self._add_hname(d[s:e]),
            "on_header_value": lambda d, s, e: self._add_hvalue(d[s:e]),
            "on_header_end": self.on_header_end,
            "on_headers_finished": self.on_headers_finished,
            "on_part_data": self.on_part_data,
            "on_part_end": self.on_part_end,
            "on_end": self.on_end,
        }

    def _add_hname(self, b: bytes) -> None:
        self._hname += b

    def _add_hvalue(self, b: bytes) -> None:
        self._hvalue += b

    def on_part_begin(self) -> None:
        self.headers = {}
        self._hname = self._hvalue = b""

    def on_header_end(self) -> None:
        # raw bytes: parse_options_header reads them as latin-1, which round-trips UTF-8 names
        self.headers[self._hname.decode("latin-1").strip().lower()] = self._hvalue.strip()
        self._hname = self._hvalue = b""

    def on_headers_finished(self) -> None:
        disposition, params = parse_options_header(self.headers.get("content-disposition", b""))
        if disposition != b"form-data" or b"name" not in params:
            raise ApiError(400, "a multipart part has no form-data name", INVALID)
        name = params[b"name"].decode("utf-8", "replace")
        has_filename = b"filename" in params
        if name == "file" or has_filename:
            if name != "file":
                raise ApiError(
                    400, f"the file field must be named 'file' (got '{name[:50]}')", INVALID
                )
            if self.file is not None:
                raise ApiError(400, "only one file per request", INVALID)
            filename = params.get(b"filename", b"").decode("utf-8", "replace")
            if not filename:
                raise ApiError(400, "the file part has no filename", INVALID)
            ctype = self.headers.get("content-type", b"").decode("utf-8", "replace")
            if not ctype:
                raise ApiError(400, "the file part has no content type", INVALID)
            self.filename = safe_filename(filename)
            self.content_type = ctype
            self.file = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY)  # noqa: SIM115
            self._current = "file"
        else:
            self._current = name
            self._field_buf = bytearray()

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        chunk = data[start:end]
        if self._current == "file":
            assert self.file is not None
            self.size += len(chunk)
            if self.size > self.max_bytes:
                raise too_large(self.max_bytes)
            self.digest.update(chunk)
            self.file.write(chunk)
        elif self._current:
            self._field_buf += chunk
            if len(self._field_buf) > MAX_FIELD_BYTES:
                raise ApiError(400, f"field '{self._current[:50]}' is too long", "INVALID_REQUEST")

    def on_part_end(self) -> None:
        if self._current and self._current != "file":
            try:
                self.fields[self._current] = self._field_buf.decode("utf-8")
            except UnicodeDecodeError as err:
                raise ApiError(
                    400, f"field '{self._current[:50]}' is not UTF-8 text", "INVALID_REQUEST"
                ) from err
        self._current = None

    def on_end(self) -> None:
        self.ended = True


async def read_upload(request: Request, max_bytes: int) -> Upload:
    """Stream the multipart body of `request` into an Upload.

    Raises ApiError: 413 (over `max_bytes`, decided from Content-Length or while counting),
    400 INVALID_MULTIPART_PAYLOAD (not multipart, malformed, misnamed or incomplete file part),
    400 "No file was uploaded". Reads the request body, so call it once per request.
    """
    check_content_length(request, max_bytes)
    boundary = multipart_boundary(request.headers.get("content-type", ""))
    collector = _Collector(max_bytes)
    parser = MultipartParser(boundary, collector.callbacks())  # type: ignore[arg-type]
    total = 0
    try:
        async for chunk in request.stream():
            total += len(chunk)
            if total > max_bytes + BODY_OVERHEAD:
                raise too_large(max_bytes)
            parser.write(chunk)
        parser.finalize()
    except MultipartParseError as err:
        _discard(collector)
        if "header size" in str(err):  # a file name of thousands of characters, most often
            raise ApiError(400, "a part's header is too long: give a file name of at most 255 "
                           "characters", INVALID) from err
        raise ApiError(400, "malformed multipart body", INVALID) from err
    except ClientDisconnect as err:
        _discard(collector)
        raise ApiError(400, "the client closed the connection before the body ended", INVALID) from err
    except BaseException:
        _discard(collector)
        raise
    if not collector.ended:
        _discard(collector)
        raise ApiError(400, "malformed multipart body (it ends before its final boundary)", INVALID)
    if collector.file is None:
        raise ApiError(400, "No file was uploaded: send the document in a field named 'file'", "NO_FILE")
    collector.file.seek(0)
    return Upload(
        filename=collector.filename, content_type=collector.content_type, file=collector.file,
        size=collector.size, sha256=collector.digest.hexdigest(), fields=collector.fields,
    )


def _discard(collector: _Collector) -> None:
    if collector.file is not None:
        collector.file.close()
