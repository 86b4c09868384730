"""Hostile documents for the engine's bounds, built at test time in a second or two each.

Each is small on disk and inside every documented upload limit; reading it naively costs
minutes or gigabytes. None is committed as a binary fixture.

    pdf_dates_line(dates)        one page, one line of text: ~28 bytes and one date each
    pdf_million_pages()          a 12 KB page tree naming one page a million times
    pdf_lying_page_tree(kids)    /Count 1, but /Kids lists one page `kids` times
    pdf_flat_pages(pages)        `pages` real page objects (10 MB per 100,000)
    pdf_form_fanout(draws, kb)   a page drawing one form of `kb` KB of text `draws` times
    pdf_nested_forms(fanout, depth)  forms listing the next form `fanout` times, `depth` deep
    pdf_cmap_expansion(codes)    a font mapping one byte to 250 characters, `codes` bytes
    xlsx_wide_row(cells)         one row of `cells` empty cells (the attack: 16 M)
    docx_many_runs(runs)         one paragraph of `runs` runs
    pptx_many_runs(runs)         one slide paragraph of `runs` runs
    docx_huge_text(mb)           one run holding `mb` MiB of text
"""

from __future__ import annotations

import io
import random
import zipfile
import zlib
from collections.abc import Sequence

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_P = "http://schemas.openxmlformats.org/presentationml/2006/main"
_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
_CT = ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
       'package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/>'
       '</Types>')
_FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def raw_pdf(objects: Sequence[bytes]) -> bytes:
    """A PDF of `objects` (object i+1 is objects[i]; object 1 is the catalog)."""
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, obj in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(f"{i} 0 obj\n".encode() + obj + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    out.write(b"".join(f"{off:010d} 00000 n \n".encode() for off in offsets))
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
              .encode())
    return out.getvalue()


def flate_stream(data: bytes, extra: bytes = b"") -> bytes:
    """A flate-compressed stream object holding `data` (`extra`: more dictionary entries)."""
    packed = zlib.compress(data, 9)
    return (b"<< " + extra + f" /Length {len(packed)} /Filter /FlateDecode >>\nstream\n".encode()
            + packed + b"\nendstream")


def _one_page(content: bytes, resources: bytes = b"<< /Font << /F1 5 0 R >> >>",
              more: Sequence[bytes] = (_FONT,)) -> bytes:
    """Catalog (1), pages (2), page (3), its content (4), then `more` from object 5 on."""
    return raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources "
        + resources + b" >>",
        flate_stream(content),
        *more,
    ])


def pdf_attached_xml_bomb(mb: int = 400, attachments: int = 1) -> bytes:
    """A one-page PDF of text attaching `attachments` files "factur-x.xml", each a flate
    stream that decodes to `mb` MB (a few hundred kB packed) and declares no size."""
    content = b"BT /F1 12 Tf 72 720 Td (Rechnung Nordlicht GmbH Datum 14.03.2025) Tj ET"
    first = 6  # objects 1-5: catalog, pages, page, content, font
    bomb = flate_stream(b"<a>" + b" " * (mb * 1024 * 1024) + b"</a>", b"/Type /EmbeddedFile")
    names = b" ".join(f"(factur-x.xml) {first + 2 * i} 0 R".encode() for i in range(attachments))
    files: list[bytes] = []
    for i in range(attachments):
        files += [f"<< /Type /Filespec /F (factur-x.xml) /EF << /F {first + 2 * i + 1} 0 R >> >>"
                  .encode(), bomb]
    return raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [" + names
        + b"] >> >> >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources "
        b"<< /Font << /F1 5 0 R >> >> >>",
        flate_stream(content),
        _FONT,
        *files,
    ])


def dates_text(dates: int) -> bytes:
    """`dates` dates on one line, about 28 bytes each ("Datum 14.03.2021 Ref 123 / ...")."""
    units = [f"Datum {d:02d}.{m:02d}.2021 Ref {d * m:03d} / ".encode()
             for m in (3, 7) for d in range(1, 29)]
    whole, rest = divmod(dates, len(units))
    return b"".join(units) * whole + b"".join(units[:rest])


def pdf_dates_line(dates: int = 1_600_000) -> bytes:
    """One page whose text layer is one line of `dates` dates: 1.6 M dates are ~45 MB of
    text in a ~100 KB file (the attack of issue 14)."""
    return _one_page(b"BT /F1 1 Tf 10 700 Td (" + dates_text(dates) + b") Tj ET")


def pdf_million_pages(fanout: int = 1000) -> bytes:
    """A page tree declaring fanout^2 pages: its root lists one node `fanout` times, which
    lists one page `fanout` times (12 KB for a million pages)."""
    return raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + b"3 0 R " * fanout + f"] /Count {fanout ** 2} >>".encode(),
        b"<< /Type /Pages /Parent 2 0 R /Kids [" + b"4 0 R " * fanout
        + f"] /Count {fanout} >>".encode(),
        b"<< /Type /Page /Parent 3 0 R /MediaBox [0 0 595 842] >>",
    ])


def pdf_lying_page_tree(kids: int = 50_000) -> bytes:
    """A tree declaring one page whose /Kids lists the same page `kids` times."""
    return raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + b"3 0 R " * kids + b"] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
    ])


def pdf_flat_pages(pages: int = 100_000) -> bytes:
    """`pages` distinct empty pages under one node (about 100 bytes each)."""
    kids = " ".join(f"{3 + i} 0 R" for i in range(pages))
    return raw_pdf([b"<< /Type /Catalog /Pages 2 0 R >>",
                    f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode(),
                    *[b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>"] * pages])


def pdf_form_fanout(draws: int = 5000, form_kb: int = 100) -> bytes:
    """A page drawing one form XObject `draws` times; the form shows `form_kb` KB of text.
    pypdf parses the form again at every drawing (5000 x 100 KB: half a GB)."""
    text = b"BT /F1 9 Tf 0 0 Td (" + b"Invoice 2024 " * (form_kb * 1024 // 13) + b") Tj ET"
    return _one_page(b"/Fm0 Do\n" * draws, b"<< /Font << /F1 5 0 R >> /XObject << /Fm0 6 0 R >> >>",
                     [_FONT, flate_stream(text, b"/Type /XObject /Subtype /Form /BBox [0 0 9 9] "
                                          b"/Resources << /Font << /F1 5 0 R >> >>")])


def pdf_nested_forms(fanout: int = 100, depth: int = 5) -> bytes:
    """A page without text whose resources list form 1 `fanout` times, form 1 lists form 2
    `fanout` times, ... and the last form holds a small image: fanout^depth paths to it."""
    first = 5  # object number of form 1
    forms = []
    for level in range(depth):
        target = first + level + 1
        names = b" ".join(f"/X{i} {target} 0 R".encode() for i in range(fanout))
        forms.append(flate_stream(b"", b"/Type /XObject /Subtype /Form /BBox [0 0 9 9] "
                                  b"/Resources << /XObject << " + names + b" >> >>"))
    image = flate_stream(b"\x80" * 64, b"/Type /XObject /Subtype /Image /Width 8 /Height 8 "
                         b"/ColorSpace /DeviceGray /BitsPerComponent 8")
    names = b" ".join(f"/X{i} {first} 0 R".encode() for i in range(fanout))
    return _one_page(b"q Q\n", b"<< /XObject << " + names + b" >> >>", [*forms, image])


def pdf_cmap_expansion(codes: int = 1_900_000, chars: int = 250) -> bytes:
    """A page showing `codes` bytes in a font whose ToUnicode map turns each into `chars`
    characters (1.9 MB of content: 475 million characters)."""
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def "
            b"1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <01> <"
            + b"0041" * chars + b"> endbfchar endcmap CMapName currentdict /CMap defineresource "
            b"pop end end")
    return _one_page(b"BT /F1 12 Tf 10 700 Td (" + b"\x01" * codes + b") Tj ET",
                     more=[b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
                           b"/ToUnicode 6 0 R >>", flate_stream(cmap)])


def _zip(parts: dict[str, bytes | str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for name, body in parts.items():
            zf.writestr(name, body)
    return buf.getvalue()


def _random_letters(count: int, alphabet: bytes, seed: int) -> bytes:
    """`count` bytes drawn from `alphabet` (seeded; its length must divide 256)."""
    table = bytes(alphabet[i % len(alphabet)] for i in range(256))
    return random.Random(seed).randbytes(count).translate(table)


def xlsx_wide_row(cells: int = 16_000_000) -> bytes:
    """A workbook whose one sheet holds one row of `cells` empty cells (64 MB of XML, under
    the 64 MiB part limit; a line break after one cell in eight, at random, keeps the
    compression ratio under the zip-bomb check's 100:1, as in the attack's 7 MB file)."""
    row = (_random_letters(cells, b"xxxxxxxy", 1)
           .replace(b"x", b"<c/>").replace(b"y", b"<c/>\n"))
    sheet = (f'<worksheet xmlns="{_S}"><sheetData><row r="1">'.encode() + row
             + b"</row></sheetData></worksheet>")
    return _zip({"[Content_Types].xml": _CT,
                 "xl/workbook.xml": f'<workbook xmlns="{_S}"><sheets/></workbook>',
                 "xl/worksheets/sheet1.xml": sheet})


def _runs(prefix: str, runs: int) -> bytes:
    """`runs` runs of one random letter each: <w:r><w:t>k</w:t></w:r>..."""
    head, tail = f"<{prefix}:r><{prefix}:t>".encode(), f"</{prefix}:t></{prefix}:r>".encode()
    unit = len(head) + 1 + len(tail)
    out = bytearray((head + b"?" + tail) * runs)
    out[len(head)::unit] = _random_letters(runs, b"abcdefghijklmnop", 2)
    return bytes(out)


def docx_many_runs(runs: int = 2_500_000) -> bytes:
    """A DOCX whose body is one paragraph of `runs` one-letter runs (23 bytes each: 2.5 M
    make 57 MB of XML, under the 64 MiB part limit the attack was built for)."""
    body = (f'<w:document xmlns:w="{_W}"><w:body><w:p>'.encode() + _runs("w", runs)
            + b"</w:p></w:body></w:document>")
    return _zip({"[Content_Types].xml": _CT, "word/document.xml": body})


def pptx_many_runs(runs: int = 2_500_000) -> bytes:
    """A PPTX whose one slide holds one paragraph of `runs` one-letter runs."""
    slide = (f'<p:sld xmlns:p="{_P}" xmlns:a="{_A}"><p:cSld><p:spTree><p:sp><p:txBody><a:p>'
             .encode() + _runs("a", runs) + b"</a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>")
    return _zip({"[Content_Types].xml": _CT, "ppt/presentation.xml": f'<p:presentation xmlns:p="{_P}"/>',
                 "ppt/slides/slide1.xml": slide})


def docx_huge_text(mb: int = 60) -> bytes:
    """A DOCX with one run holding `mb` MiB of text (random letters and spaces)."""
    text = _random_letters(mb * 1024 * 1024, b"aaaaaaa ", 3)
    body = (f'<w:document xmlns:w="{_W}"><w:body><w:p><w:r><w:t>'.encode() + text
            + b"</w:t></w:r></w:p></w:body></w:document>")
    return _zip({"[Content_Types].xml": _CT, "word/document.xml": body})
