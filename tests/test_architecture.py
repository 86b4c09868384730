"""The tree is the architecture: dependencies point one way, and every part stays readable.

Layers, top to bottom (a module may import its own part and the parts below it, never a part
beside or above it):

    commands                         the CLI
    api, web                         HTTP: the v1 API (JSON) and the web app (pages)
    runtime                          daemon, workers, polling, observability
    service                          the rules: accounts, credits, jobs, journal, ...
    storage                          database, models, migrations
    config, renamerd_connectors      settings; the connector plugins
    engine, connectors, client       pure engine; the connector protocol; the API's client
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "renamerd"
PLUGINS = ROOT / "connectors" / "renamerd_connectors"

#: part -> rank; a module may import parts of a lower rank, and its own part
RANKS = {
    "commands": 6,
    "api": 5, "web": 5,
    "runtime": 4,
    "service": 3,
    "storage": 2,
    "config": 1, "renamerd_connectors": 1,
    "engine": 0, "connectors": 0, "client": 0,
}

#: longest class and function a reader should have to hold (lines, decorators excluded)
MAX_CLASS_LINES = 260
MAX_FUNCTION_LINES = 65


def _part(module: str) -> str | None:
    """'renamerd.service.jobs.queue' -> 'service'; 'renamerd_connectors.local' -> its part."""
    if module.startswith("renamerd_connectors"):
        return "renamerd_connectors"
    if not module.startswith("renamerd."):
        return None
    return module.split(".")[1]


def _module_name(path: Path) -> str:
    if path.is_relative_to(PLUGINS):
        rel = path.relative_to(PLUGINS.parent).with_suffix("")
    else:
        rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> list[Path]:
    return sorted([*SRC.rglob("*.py"), *PLUGINS.rglob("*.py")])


def _imports(tree: ast.AST, module: str) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = module.split(".")[: -node.level] if node.level else []
                name = ".".join([*base, node.module or ""]).strip(".")
            else:
                name = node.module or ""
            found.append((node.lineno, name))
            # `from renamerd import service` names a part too
            if name == "renamerd":
                found += [(node.lineno, f"renamerd.{alias.name}") for alias in node.names]
    return found


def test_dependencies_point_one_way() -> None:
    wrong = []
    for path in _sources():
        module = _module_name(path)
        mine = _part(module)
        if mine is None or mine not in RANKS:
            continue
        for line, target in _imports(ast.parse(path.read_text()), module):
            theirs = _part(target)
            if theirs is None or theirs == mine or theirs not in RANKS:
                continue
            if RANKS[theirs] >= RANKS[mine]:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {mine} imports {target}")
    assert not wrong, "imports against the direction of the layers:\n" + "\n".join(wrong)


def test_the_engine_is_pure() -> None:
    """The engine takes bytes and options and returns a result: no database, no HTTP server,
    no connector, no settings object."""
    banned = ("sqlalchemy", "sqlmodel", "fastapi", "starlette", "uvicorn", "renamerd.config")
    wrong = []
    for path in (SRC / "engine").rglob("*.py"):
        for line, target in _imports(ast.parse(path.read_text()), _module_name(path)):
            if target.startswith(banned):
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {target}")
    assert not wrong, "\n".join(wrong)


def _too_long(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ClassDef):
            limit = MAX_CLASS_LINES
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            limit = MAX_FUNCTION_LINES
        else:
            continue
        assert node.end_lineno is not None
        length = node.end_lineno - node.lineno + 1
        if length > limit:
            out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.name} has {length} lines")
    return out


@pytest.mark.parametrize("folder", [SRC, PLUGINS], ids=["renamerd", "renamerd_connectors"])
def test_classes_and_functions_a_reader_can_hold(folder: Path) -> None:
    too_long = []
    for path in sorted(folder.rglob("*.py")):
        if "migrations" in path.parts:  # generated schema history
            continue
        too_long += _too_long(path)
    assert not too_long, (
        f"classes over {MAX_CLASS_LINES} lines or functions over {MAX_FUNCTION_LINES}: split "
        "them along their ideas\n" + "\n".join(too_long))
