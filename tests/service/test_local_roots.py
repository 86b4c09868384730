"""`[providers.local] roots`: the server folders users' own local connections may reach."""

from __future__ import annotations

import os
from pathlib import Path

from renamerd.service import local_roots


def test_roots_of_gives_each_user_their_own_folder(tmp_path: Path) -> None:
    providers = {"local": {"roots": [f"{tmp_path}/users/{{email}}", "relative/ignored"]}}
    assert local_roots.roots_of(providers, "Ada@Example.org") == [
        f"{tmp_path}/users/ada@example.org"]
    assert local_roots.roots_of(providers, "../../etc/x@y") == [
        f"{tmp_path}/users/.._.._etc_x@y"]
    assert local_roots.roots_of({"local": {}}, "ada@example.org") == []
    assert local_roots.roots_of({}, "ada@example.org") == []


def test_a_folder_is_allowed_only_inside_a_root_links_resolved(tmp_path: Path) -> None:
    root = tmp_path / "ada"
    (root / "in").mkdir(parents=True)
    (tmp_path / "bob").mkdir()
    os.symlink(tmp_path / "bob", root / "to-bob")
    roots = [str(root)]
    assert local_roots.inside(str(root), roots)
    assert local_roots.inside(f"{root}/in/not-made-yet", roots)
    assert not local_roots.inside(f"{root}/../bob", roots)
    assert not local_roots.inside(f"{root}/to-bob/in", roots)
    assert not local_roots.inside(f"{tmp_path}/ada-evil", roots)
    assert not local_roots.inside("/etc", roots)


def test_problem_names_the_field_and_the_allowed_folders(tmp_path: Path) -> None:
    providers = {"local": {"roots": [f"{tmp_path}/{{email}}"]}}
    mine = f"{tmp_path}/ada@example.org"
    assert local_roots.problem(providers, "ada@example.org", f"{mine}/in", f"{mine}/out") is None
    assert local_roots.problem(providers, "ada@example.org", f"{mine}/in", "") is None
    reason = local_roots.problem(providers, "ada@example.org", f"{mine}/in",
                                 f"{tmp_path}/bob@example.org/out")
    assert reason is not None and reason.startswith("target:") and mine in reason
    no_roots = local_roots.problem({"local": {}}, "ada@example.org", "/srv", "")
    assert no_roots is not None and "[providers.local] roots" in no_roots


def test_browsable_shows_only_the_way_down_to_the_roots(tmp_path: Path) -> None:
    roots = [f"{tmp_path}/users/ada", f"{tmp_path}/shared/scans"]
    assert local_roots.browsable("/", roots) == [str(tmp_path).split("/")[1]]
    assert local_roots.browsable(str(tmp_path), roots) == ["shared", "users"]
    assert local_roots.browsable(f"{tmp_path}/users", roots) == ["ada"]
    assert local_roots.browsable(f"{tmp_path}/users/ada", roots) is None
    assert local_roots.browsable(f"{tmp_path}/users/ada/2024", roots) is None
    assert local_roots.browsable(f"{tmp_path}/other", roots) == []
    assert local_roots.connector_options({"roots": ["/x"], "stable_checks": 2}) == {
        "stable_checks": 2}
