"""Upload names from hostile clients: a 10,000-character file name gets a clear 400 (not
"malformed multipart body"); a name with a right-to-left override and path parts is echoed
cleaned in originalFilename."""

from __future__ import annotations

from api.conftest import MakeApi
from api.test_account import assert_error

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def test_a_huge_file_name_is_a_clear_400(make_api: MakeApi) -> None:
    api = make_api()
    r = api.client.post("/api/v1/rename", headers=api.auth,
                        files={"file": ("a" * 10_000 + ".pdf", PDF, "application/pdf")})
    assert_error(r, 400)
    assert "file name of at most 255" in r.json()["error"]
    assert api.balance() == 50


def test_format_characters_and_paths_are_cleaned(make_api: MakeApi) -> None:
    api = make_api()
    r = api.client.post("/api/v1/rename", headers=api.auth,
                        files={"file": ("\u202eevil/../fdp.pdf", PDF, "application/pdf")})
    assert r.status_code == 200
    name = r.json()["originalFilename"]
    assert "\u202e" not in name and "/" not in name and ".." not in name


def test_a_name_of_dots_is_echoed_as_document(make_api: MakeApi) -> None:
    api = make_api()
    for name in ("..", "evil/..", " . "):
        r = api.client.post("/api/v1/rename", headers=api.auth,
                            files={"file": (name, PDF, "application/pdf")})
        assert r.json()["originalFilename"] == "document", (name, r.text)
