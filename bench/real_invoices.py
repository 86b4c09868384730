"""Fetch the labelled real invoices for `renamerd eval` (docs/engine-accuracy.md).

Real born-digital invoices are rare in public: these come from the test folders of packages on
PyPI (invoice2data, OCA's Odoo add-ons and others; each entry names its licence), listed with
their archive's address, the path inside it, the file's SHA-256 and the labels in
bench/corpora/real_invoices.json. They are downloaded when measuring, never kept in this
repository. The set "receipts" holds real receipt photos and scans (images) of the same kind.
The set "heldout" was gathered after the others and never looked at while changing the engine:
only measured. Its entries say what each is ("kind": invoice, receipt or statement; "real":
false for a generated sample), and so does the name's prefix ("heldout-sample-invoice__...").

    .venv/bin/python bench/real_invoices.py /tmp/real_invoices        # the real born-digital ones
    .venv/bin/python bench/real_invoices.py /tmp/samples --set samples  # generated samples
    .venv/bin/python bench/real_invoices.py /tmp/receipts --set receipts  # real receipt photos, scans
    .venv/bin/python bench/real_invoices.py /tmp/heldout --set heldout    # measured only, never tuned on
    .venv/bin/renamerd eval /tmp/real_invoices --show-errors
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import tarfile
import urllib.request
import zipfile
from pathlib import Path

TABLE = Path(__file__).resolve().parent / "corpora" / "real_invoices.json"


def member_bytes(archive: bytes, url: str, member: str) -> bytes:
    """The file `member` of a .tar.gz sdist or a .whl (zip) archive."""
    if url.endswith(".whl") or url.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(archive)) as z:
            return z.read(member)
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as t:
        f = t.extractfile(member)
        if f is None:
            raise KeyError(member)
        return f.read()


def fetch(directory: Path, which: str) -> int:
    table = json.loads(TABLE.read_text(encoding="utf-8"))
    directory.mkdir(parents=True, exist_ok=True)
    cache = directory / ".archives"
    cache.mkdir(exist_ok=True)
    truth = {}
    for name, entry in table.items():
        if entry["set"] != which:
            continue
        archive_path = cache / entry["url"].rsplit("/", 1)[-1]
        if not archive_path.exists():
            with urllib.request.urlopen(entry["url"], timeout=60) as r:  # noqa: S310 (https)
                archive_path.write_bytes(r.read())
        data = member_bytes(archive_path.read_bytes(), entry["url"], entry["member"])
        digest = hashlib.sha256(data).hexdigest()
        if digest != entry["sha256"]:
            raise SystemExit(f"{name}: sha256 {digest} is not the listed {entry['sha256']}")
        (directory / name).write_bytes(data)
        truth[name] = entry["truth"]
    (directory / "truth.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False),
                                          encoding="utf-8")
    return len(truth)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--set", default="real", choices=("real", "samples", "receipts", "heldout"))
    args = parser.parse_args()
    count = fetch(args.directory, args.set)
    print(f"{count} documents and truth.json in {args.directory}")


if __name__ == "__main__":
    main()
