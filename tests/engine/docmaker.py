"""Generate test documents at test time: text PDFs, scans, Office files, hostile files.

Everything is deterministic (seeded) and needs only reportlab, Pillow and fonts: DejaVu (Latin,
Greek, Cyrillic, Arabic), WenQuanYi Micro Hei (Chinese, Japanese, Korean) and Lohit Devanagari
(Hindi), chosen per line by its script (scripts/system-deps installs them).

    make_pdf(lines) / make_pdf_pages(pages)          born-digital PDF with a text layer
    render_page(lines) -> PIL.Image                    a page rendered as a scanner would see it
    make_scan(lines, rotate=90, noise=0.02, fmt="jpeg") scan image bytes (png | jpeg | tiff)
    make_tiff(pages)                                   multi-page TIFF, one frame per page
    make_scanned_pdf(pages)                            image-only PDF (one JPEG per page)
    make_docx(paragraphs) / make_xlsx(sheets) / make_pptx(slides)
    make_ole(kind)                                     minimal OLE2 container (doc | xls | ppt)
    make_encrypted_pdf(lines), pdf_flate_bomb(), zip_bomb_ratio(), zip_bomb_entries(),
    png_huge_header(), zip_lying_size()                hostile input

A line is a str (placed below the previous one) or a `TextAt` (positioned, for layouts).
"""

from __future__ import annotations

import io
import random
import struct
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from xml.sax.saxutils import escape

from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FONT = f"{FONT_DIR}/DejaVuSans.ttf"
FONT_BOLD = f"{FONT_DIR}/DejaVuSans-Bold.ttf"
FONT_CJK = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
FONT_DEVANAGARI = "/usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf"


def _script(text: str) -> str:
    """"cjk", "deva" or "latin" (DejaVu also covers Arabic): the font family a line needs."""
    for ch in text:
        cp = ord(ch)
        if 0x3040 <= cp <= 0x9FFF or 0xAC00 <= cp <= 0xD7AF or 0xFF00 <= cp <= 0xFFEF \
                or 0x1100 <= cp <= 0x11FF or 0x3130 <= cp <= 0x318F:
            return "cjk"
        if 0x0900 <= cp <= 0x097F:
            return "deva"
    return "latin"
A4_MM = (210.0, 297.0)


@dataclass(frozen=True)
class TextAt:
    """Text at a position in millimetres from the top-left corner of an A4 page."""

    x_mm: float
    y_mm: float
    text: str
    size: float = 10.0
    bold: bool = False


Line = str | TextAt


def layout(lines: Sequence[Line], *, top_mm: float = 20.0, left_mm: float = 20.0,
           size: float = 11.0, leading: float = 1.5) -> list[TextAt]:
    """Place plain strings one below the other; TextAt items keep their position."""
    placed: list[TextAt] = []
    y = top_mm
    for line in lines:
        if isinstance(line, TextAt):
            placed.append(line)
            continue
        placed.append(TextAt(left_mm, y, line, size))
        y += size * 0.3528 * leading
    return placed


# --- PDF with a text layer ------------------------------------------------------------------

@lru_cache(maxsize=1)
def _register_fonts() -> None:
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    pdfmetrics.registerFont(TTFont("DejaVu", FONT))
    pdfmetrics.registerFont(TTFont("DejaVu-Bold", FONT_BOLD))
    pdfmetrics.registerFont(TTFont("WQY", FONT_CJK, subfontIndex=0))
    pdfmetrics.registerFont(TTFont("Lohit", FONT_DEVANAGARI))


def _pdf_font(text: str, bold: bool) -> str:
    script = _script(text)
    if script == "cjk":
        return "WQY"
    if script == "deva":
        return "Lohit"
    return "DejaVu-Bold" if bold else "DejaVu"


def make_pdf_pages(pages: Sequence[Sequence[Line]], *, size: float = 11.0,
                   compress: bool = True, logo_px: tuple[int, int] | None = None) -> bytes:
    """A born-digital PDF, one page per item of `pages`, text in DejaVu (full Unicode).

    `logo_px` (width, height) adds a grey logo image of that many pixels at the top right.
    """
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.units import mm
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    _register_fonts()
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf, pagesize=A4, pageCompression=1 if compress else 0, invariant=1)
    for lines in pages:
        if logo_px:
            logo = Image.new("L", logo_px, 128)
            pdf.drawImage(ImageReader(logo), A4[0] - 60 * mm, A4[1] - 35 * mm,
                          width=40 * mm, height=40 * mm * logo_px[1] / logo_px[0])
        for item in layout(lines, size=size):
            pdf.setFont(_pdf_font(item.text, item.bold), item.size)
            pdf.drawString(item.x_mm * mm, A4[1] - item.y_mm * mm, item.text)
        pdf.showPage()
    pdf.save()
    return buf.getvalue()


def make_pdf(lines: Sequence[Line], **kwargs: object) -> bytes:
    """A one-page born-digital PDF."""
    return make_pdf_pages([lines], **kwargs)  # type: ignore[arg-type]


def make_encrypted_pdf(lines: Sequence[Line], password: str = "secret") -> bytes:
    """A PDF that needs `password` to open (AES-256)."""
    import pypdf

    writer = pypdf.PdfWriter(clone_from=io.BytesIO(make_pdf(lines)))
    writer.encrypt(user_password=password, owner_password=password + "-owner",
                   algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def attach(pdf: bytes, name: str, data: bytes) -> bytes:
    """`pdf` with `data` attached as an embedded file called `name` (as Factur-X and ZUGFeRD
    attach their XML)."""
    import pypdf

    writer = pypdf.PdfWriter(clone_from=io.BytesIO(pdf))
    writer.add_attachment(name, data)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


# --- scans --------------------------------------------------------------------------------

@lru_cache(maxsize=48)
def _font(size_px: int, bold: bool, script: str = "latin") -> ImageFont.FreeTypeFont:
    if script == "cjk":
        return ImageFont.truetype(FONT_CJK, size_px, index=0)
    if script == "deva":
        return ImageFont.truetype(FONT_DEVANAGARI, size_px)
    return ImageFont.truetype(FONT_BOLD if bold else FONT, size_px)


def render_page(lines: Sequence[Line], *, dpi: int = 150, size: float = 11.0,
                noise: float = 0.0, seed: int = 0) -> Image.Image:
    """Render lines onto a white A4 page (greyscale) at `dpi`.

    `noise` (0..1) adds a slight blur, grey background mottling and salt-and-pepper specks
    on that fraction of a sparse grid, as cheap scanners do.
    """
    px = dpi / 25.4
    width, height = int(A4_MM[0] * px), int(A4_MM[1] * px)
    img = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(img)
    for item in layout(lines, size=size):
        font = _font(max(6, round(item.size * dpi / 72)), item.bold, _script(item.text))
        draw.text((item.x_mm * px, item.y_mm * px), item.text, fill=0, font=font)
    if noise > 0:
        rnd = random.Random(seed)
        specks = int(width * height * noise / 50)
        for _ in range(specks):
            x, y = rnd.randrange(width), rnd.randrange(height)
            draw.point((x, y), fill=rnd.choice((0, 90, 160)))
        img = img.filter(ImageFilter.GaussianBlur(radius=min(1.2, 0.4 + noise * 4)))
    return img


def _encode(img: Image.Image, fmt: str) -> bytes:
    buf = io.BytesIO()
    if fmt == "jpeg":
        img.save(buf, format="JPEG", quality=85)
    elif fmt == "png":
        img.save(buf, format="PNG")
    elif fmt == "tiff":
        img.save(buf, format="TIFF", compression="tiff_deflate")
    else:
        raise ValueError(f"unknown image format {fmt}")
    return buf.getvalue()


def make_scan(lines: Sequence[Line], *, rotate: int = 0, noise: float = 0.0, fmt: str = "png",
              dpi: int = 150, seed: int = 0) -> bytes:
    """A scanned page as image bytes; `rotate` turns the page clockwise (90, 180, 270)."""
    img = render_page(lines, dpi=dpi, noise=noise, seed=seed)
    if rotate:
        img = img.rotate(-rotate, expand=True, fillcolor=255)
    return _encode(img, fmt)


def make_tiff(pages: Sequence[Sequence[Line]], *, dpi: int = 150, noise: float = 0.0) -> bytes:
    """A multi-page TIFF, one frame per page."""
    frames = [render_page(p, dpi=dpi, noise=noise, seed=i) for i, p in enumerate(pages)]
    buf = io.BytesIO()
    frames[0].save(buf, format="TIFF", save_all=True, append_images=frames[1:],
                   compression="tiff_deflate")
    return buf.getvalue()


def make_scanned_pdf(pages: Sequence[Sequence[Line]], *, dpi: int = 150, noise: float = 0.0,
                     rotate: int = 0, page_rotation: int = 0, stamp: str | None = None) -> bytes:
    """An image-only PDF (no text layer): one JPEG per A4 page, as a scanner makes them.

    `rotate` turns the scanned image clockwise; `page_rotation` sets the page's /Rotate;
    `stamp` is drawn as real text over each page's top margin (as a DMS stamps a scan).
    """
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    pdf = canvas.Canvas(buf, pagesize=A4, invariant=1)
    for i, lines in enumerate(pages):
        img = render_page(lines, dpi=dpi, noise=noise, seed=i)
        if rotate:
            img = img.rotate(-rotate, expand=True, fillcolor=255)
        jpeg = io.BytesIO(_encode(img, "jpeg"))
        if page_rotation:
            pdf.setPageRotation(page_rotation)
        w, h = (A4[0], A4[1]) if img.width < img.height else (A4[1], A4[0])
        if img.width > img.height:
            pdf.setPageSize((w, h))
        else:
            pdf.setPageSize(A4)
        pdf.drawImage(ImageReader(jpeg), 0, 0, width=w, height=h)
        if stamp:
            _register_fonts()
            pdf.setFont("DejaVu", 7)
            pdf.drawString(20, h - 14, stamp)
        pdf.showPage()
    pdf.save()
    return buf.getvalue()


# --- Office Open XML ------------------------------------------------------------------------

_CT = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
       '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
       '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
       'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>{}</Types>')
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
_P = "http://schemas.openxmlformats.org/presentationml/2006/main"
_S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


def _zip(parts: dict[str, str | bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in parts.items():
            zf.writestr(name, content)
    return buf.getvalue()


def _w_paragraphs(paragraphs: Sequence[str], page_break_before: Sequence[int] = ()) -> str:
    out = []
    for i, text in enumerate(paragraphs):
        brk = '<w:r><w:br w:type="page"/></w:r>' if i in page_break_before else ""
        runs = "".join(
            (f'<w:r><w:t xml:space="preserve">{escape(part)}</w:t></w:r>' if part else "")
            + ("<w:r><w:tab/></w:r>" if j < len(text.split("\t")) - 1 else "")
            for j, part in enumerate(text.split("\t"))
        )
        out.append(f"<w:p>{brk}{runs}</w:p>")
    return "".join(out)


def make_docx(paragraphs: Sequence[str], *, header: Sequence[str] = (),
              footer: Sequence[str] = (), page_break_before: Sequence[int] = ()) -> bytes:
    """A DOCX with the given body paragraphs ("\\t" becomes a tab), optional header/footer,
    and explicit page breaks before the paragraphs whose indexes are in `page_break_before`."""
    parts: dict[str, str | bytes] = {
        "[Content_Types].xml": _CT.format(
            '<Override PartName="/word/document.xml" ContentType="application/vnd.openxml'
            'formats-officedocument.wordprocessingml.document.main+xml"/>'),
        # the package's relationship to its main part, which LibreOffice needs to open the file
        "_rels/.rels": '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas'
                       '.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" '
                       'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
                       'officeDocument" Target="word/document.xml"/></Relationships>',
        "word/document.xml": f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{_W}">'
                             f"<w:body>{_w_paragraphs(paragraphs, page_break_before)}</w:body>"
                             "</w:document>",
    }
    if header:
        parts["word/header1.xml"] = f'<w:hdr xmlns:w="{_W}">{_w_paragraphs(header)}</w:hdr>'
    if footer:
        parts["word/footer1.xml"] = f'<w:ftr xmlns:w="{_W}">{_w_paragraphs(footer)}</w:ftr>'
    return _zip(parts)


def make_pptx(slides: Sequence[Sequence[str]]) -> bytes:
    """A PPTX with one slide per item, each line a paragraph."""
    parts: dict[str, str | bytes] = {
        "[Content_Types].xml": _CT.format(""),
        "ppt/presentation.xml": f'<p:presentation xmlns:p="{_P}"/>',
    }
    for i, lines in enumerate(slides, 1):
        paras = "".join(f"<a:p><a:r><a:t>{escape(t)}</a:t></a:r></a:p>" for t in lines)
        parts[f"ppt/slides/slide{i}.xml"] = (
            f'<p:sld xmlns:p="{_P}" xmlns:a="{_A}"><p:cSld><p:spTree><p:sp><p:txBody>'
            f"{paras}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>")
    return _zip(parts)


def make_xlsx(sheets: Sequence[Sequence[Sequence[object]]]) -> bytes:
    """An XLSX, one worksheet per item: rows of cells (str -> shared string, int/float ->
    number, datetime.date -> a date-formatted serial number)."""
    import datetime as dt

    strings: list[str] = []
    parts: dict[str, str | bytes] = {
        "[Content_Types].xml": _CT.format(""),
        "xl/workbook.xml": f'<workbook xmlns="{_S}"><sheets/></workbook>',
        "xl/styles.xml": f'<styleSheet xmlns="{_S}"><cellXfs count="2"><xf numFmtId="0"/>'
                         '<xf numFmtId="14" applyNumberFormat="1"/></cellXfs></styleSheet>',
    }
    for n, rows in enumerate(sheets, 1):
        xml_rows = []
        for r, row in enumerate(rows, 1):
            cells = []
            for c, value in enumerate(row):
                ref = f"{chr(65 + c)}{r}"
                if isinstance(value, str):
                    strings.append(value)
                    cells.append(f'<c r="{ref}" t="s"><v>{len(strings) - 1}</v></c>')
                elif isinstance(value, dt.date):
                    serial = (value - dt.date(1899, 12, 30)).days
                    cells.append(f'<c r="{ref}" s="1"><v>{serial}</v></c>')
                else:
                    cells.append(f'<c r="{ref}"><v>{value}</v></c>')
            xml_rows.append(f'<row r="{r}">{"".join(cells)}</row>')
        parts[f"xl/worksheets/sheet{n}.xml"] = (
            f'<worksheet xmlns="{_S}"><sheetData>{"".join(xml_rows)}</sheetData></worksheet>')
    parts["xl/sharedStrings.xml"] = (
        f'<sst xmlns="{_S}">' + "".join(f"<si><t>{escape(s)}</t></si>" for s in strings) + "</sst>")
    return _zip(parts)


# --- OLE2 (legacy Office) -------------------------------------------------------------------

_OLE_STREAMS = {"doc": "WordDocument", "xls": "Workbook", "ppt": "PowerPoint Document",
                "encrypted": "EncryptedPackage"}


def _dir_entry(name: str, kind: int, start: int = 0xFFFFFFFE, size: int = 0,
               child: int = 0xFFFFFFFF) -> bytes:
    raw = name.encode("utf-16-le") + b"\x00\x00"
    return (raw.ljust(64, b"\x00") + struct.pack("<HBB", len(raw), kind, 1)
            + struct.pack("<III", 0xFFFFFFFF, 0xFFFFFFFF, child) + b"\x00" * 16
            + struct.pack("<I", 0) + b"\x00" * 16 + struct.pack("<IQ", start, size))


def make_ole(kind: str) -> bytes:
    """A minimal OLE2 compound file whose directory names the stream that marks `kind`
    ("doc", "xls", "ppt", or "encrypted" for a password-protected OOXML)."""
    header = bytearray(512)
    header[0:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    struct.pack_into("<HHHH", header, 24, 0x3E, 3, 0xFFFE, 9)  # minor, major, byte order, 512
    struct.pack_into("<H", header, 32, 6)
    struct.pack_into("<I", header, 44, 1)  # one FAT sector
    struct.pack_into("<I", header, 48, 1)  # directory starts at sector 1
    struct.pack_into("<I", header, 56, 4096)
    struct.pack_into("<I", header, 60, 0xFFFFFFFE)
    struct.pack_into("<I", header, 68, 0xFFFFFFFE)
    header[76:512] = struct.pack("<I", 0) + b"\xff" * (512 - 80)
    fat = struct.pack("<III", 0xFFFFFFFD, 0xFFFFFFFE, 0xFFFFFFFE).ljust(512, b"\xff")
    directory = (_dir_entry("Root Entry", 5, child=1) + _dir_entry(_OLE_STREAMS[kind], 2)
                 + b"\x00" * 256)
    return bytes(header) + fat + directory


# --- hostile input --------------------------------------------------------------------------

def _raw_pdf(objects: list[bytes]) -> bytes:
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, obj in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(f"{i} 0 obj\n".encode() + obj + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for off in offsets:
        out.write(f"{off:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
              .encode())
    return out.getvalue()


def flate_zeros(decoded_mb: int) -> bytes:
    """A valid zlib stream of `decoded_mb` MiB of zeros, built in milliseconds.

    One MiB is compressed and fully flushed once; after a full flush the compressor starts
    afresh, so every further MiB compresses to the same bytes, which are repeated. The trailer
    carries the true Adler-32 of the whole output.
    """
    chunk = b"\x00" * (1024 * 1024)
    comp = zlib.compressobj(9)
    first = comp.compress(chunk) + comp.flush(zlib.Z_FULL_FLUSH)
    block = comp.compress(chunk) + comp.flush(zlib.Z_FULL_FLUSH)
    adler = 1
    for _ in range(decoded_mb):
        adler = zlib.adler32(chunk, adler)
    final = b"\x03\x00" + struct.pack(">I", adler & 0xFFFFFFFF)  # empty last block + Adler-32
    return first + block * (decoded_mb - 1) + final


def pdf_flate_bomb(decoded_mb: int = 1024) -> bytes:
    """A one-page PDF whose content stream is `decoded_mb` MiB of zeros, flate-compressed
    (about 1 MiB on disk per GiB decoded)."""
    body = flate_zeros(decoded_mb)
    stream = (f"<< /Length {len(body)} /Filter /FlateDecode >>\nstream\n".encode() + body
              + b"\nendstream")
    return _raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>",
        stream,
    ])


def pdf_many_pages(count: int) -> bytes:
    """A PDF with `count` empty pages."""
    kids = " ".join(f"{3 + i} 0 R" for i in range(count))
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
            f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode()]
    objs += [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>"] * count
    return _raw_pdf(objs)


def _docx_with_document(document: bytes, *, level: int = 9) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as zf:
        zf.writestr("[Content_Types].xml", _CT.format(""))
        zf.writestr("word/document.xml", document)
    return buf.getvalue()


def zip_bomb_ratio(decoded_mb: int = 32) -> bytes:
    """A DOCX whose document.xml inflates to `decoded_mb` MiB (ratio about 1000:1)."""
    body = b'<w:document xmlns:w="' + _W.encode() + b'"><w:body>'
    filler = b" " * (decoded_mb * 1024 * 1024)
    return _docx_with_document(body + filler + b"</w:body></w:document>")


def zip_bomb_entries(count: int = 20_000) -> bytes:
    """A DOCX-looking ZIP with `count` tiny entries."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("word/document.xml", f'<w:document xmlns:w="{_W}"/>')
        for i in range(count):
            zf.writestr(f"x/{i}", b"")
    return buf.getvalue()


def zip_lying_size(decoded_mb: int = 32) -> bytes:
    """A DOCX whose document.xml declares 1 KiB but inflates to `decoded_mb` MiB."""
    data = bytearray(zip_bomb_ratio(decoded_mb))
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
        info = zf.getinfo("word/document.xml")
    # local header: uncompressed size at +22; central directory entries: at +24
    struct.pack_into("<I", data, info.header_offset + 22, 1024)
    pos = data.find(b"PK\x01\x02")
    while pos >= 0:
        (name_len,) = struct.unpack_from("<H", data, pos + 28)
        if data[pos + 46: pos + 46 + name_len] == b"word/document.xml":
            struct.pack_into("<I", data, pos + 24, 1024)
        pos = data.find(b"PK\x01\x02", pos + 4)
    return bytes(data)


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    return (struct.pack(">I", len(payload)) + kind + payload
            + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF))


def png_huge_header(width: int = 100_000, height: int = 100_000) -> bytes:
    """A tiny PNG whose header claims width x height pixels (greyscale)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 1024)
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr) + _png_chunk(b"IDAT", idat)
            + _png_chunk(b"IEND", b""))
