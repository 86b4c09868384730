"""The documentation keeps up with the code.

- every key of `config.example.toml` and every field of `Settings` has its row in
  docs/configuration.md (written as `section.key`);
- every command and subcommand of `renamerd` has its section in docs/cli.md (a heading
  `` `renamerd group command` ``), which names each of its options and arguments;
- every dependency in pyproject.toml is in the README's dependency table;
- every relative link (and anchor) in README.md and docs/**/*.md points at something that exists,
  and every page of docs/ can be reached from docs/README.md;
- the README stays a short page for newcomers;
- every job state is in the README, in operations.md's table and in `jobs list --state`;
  every section of the config is in operations.md's reload table, and no page says there is
  no reload; operations.md says how to back up and restore.
"""

from __future__ import annotations

import re
import tomllib
import typing
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from pydantic import BaseModel

from renamerd.commands.cli import cli
from renamerd.config import Settings

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
README_MAX_LINES = 200

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.M)


# ---- helpers


def without_code(markdown: str) -> str:
    """The text without fenced code blocks and inline code spans (their `[x](y)` is no link)."""
    return re.sub(r"`[^`\n]*`", "", FENCE.sub("", markdown))


def slug(heading: str) -> str:
    """The anchor GitHub makes of a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    """Every heading anchor of a page, duplicates numbered as GitHub numbers them."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    for match in HEADING.finditer(FENCE.sub("", markdown)):
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def markdown_pages() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def relative_links(page: Path) -> list[str]:
    text = without_code(page.read_text(encoding="utf-8"))
    targets = LINK.findall(text) + REFERENCE.findall(text)
    return [t for t in targets if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", t)]


def config_example_keys(data: dict[str, typing.Any], prefix: str = "") -> Iterator[str]:
    """`section.key` paths of a TOML document; arrays of tables count as their table."""
    for key, value in data.items():
        path = f"{prefix}.{key}" if prefix else key
        tables = isinstance(value, list) and value and all(isinstance(v, dict) for v in value)
        if isinstance(value, dict):
            yield path
            yield from config_example_keys(value, path)
        elif tables:
            yield path
            for table in value:
                yield from config_example_keys(table, path)
        else:
            yield path


def settings_keys(model: type[BaseModel], prefix: str = "") -> Iterator[str]:
    """`section.key` paths of every setting the Settings model accepts."""
    for name, field in model.model_fields.items():
        if field.exclude:
            continue
        name = field.alias or name  # the key as written in the file ([mail] from)
        path = f"{prefix}.{name}" if prefix else name
        annotation = field.annotation
        inner = typing.get_args(annotation)[0] if typing.get_origin(annotation) is list else None
        nested = inner if isinstance(inner, type) else annotation
        yield path
        if isinstance(nested, type) and issubclass(nested, BaseModel):
            yield from settings_keys(nested, path)


def cli_commands(command: click.Command = cli, path: tuple[str, ...] = ()) -> Iterator[
        tuple[str, click.Command]]:
    """("renamerd users create", command) for the root, every group and every command."""
    yield " ".join(("renamerd", *path)), command
    if isinstance(command, click.Group):
        for name, sub in sorted(command.commands.items()):
            if not sub.hidden:
                yield from cli_commands(sub, (*path, name))


def cli_sections() -> dict[str, str]:
    """docs/cli.md split at its headings, keyed by the command path a heading names."""
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    headings = list(re.finditer(r"^#{1,6}[ \t]+`(renamerd(?: [\w-]+)*)`[ \t]*$", text, re.M))
    every = [m.start() for m in HEADING.finditer(text)] + [len(text)]
    sections: dict[str, str] = {}
    for match in headings:
        end = min(pos for pos in every if pos > match.start())
        sections[match.group(1)] = text[match.end():end]
    return sections


def documented(word: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def dependency_names() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        specs.extend(extra)
    names = []
    for spec in specs:
        name = re.match(r"[A-Za-z0-9_.\-]+", spec)
        if name and name.group(0).lower() != project["name"]:
            names.append(name.group(0))
    return sorted(set(names))


# ---- configuration


@pytest.mark.parametrize("source", ["config.example.toml", "Settings"])
def test_every_config_key_is_in_the_configuration_reference(source: str) -> None:
    text = (DOCS / "configuration.md").read_text(encoding="utf-8")
    if source == "config.example.toml":
        keys = set(config_example_keys(tomllib.loads((ROOT / source).read_text())))
    else:
        keys = set(settings_keys(Settings))
    sections = {k for k in keys if "." not in k}
    missing = [k for k in sorted(keys - sections) if f"`{k}`" not in text]
    missing += [s for s in sorted(sections) if f"`[{s}]`" not in text and f"`[[{s}]]`" not in text]
    assert not missing, f"docs/configuration.md lacks these keys of {source}: {missing}"


def test_config_walk_sees_sections_keys_and_connection_options() -> None:
    keys = set(config_example_keys(tomllib.loads((ROOT / "config.example.toml").read_text())))
    assert {"server", "server.host", "connections", "connections.watch",
            "connections.options.stable_checks"} <= keys
    assert {"daemon.lease_s", "connections.enabled", "connections.options"} <= set(
        settings_keys(Settings))


# ---- the CLI


def test_every_command_has_its_section_in_the_cli_reference() -> None:
    sections = cli_sections()
    missing = [path for path, _cmd in cli_commands() if path not in sections]
    assert not missing, f"docs/cli.md has no heading `renamerd ...` for: {missing}"


def test_every_option_and_argument_is_named_in_its_commands_section() -> None:
    sections = cli_sections()
    missing = []
    for path, command in cli_commands():
        text = sections.get(path, "")
        for param in command.params:
            if isinstance(param, click.Argument):
                words = [param.human_readable_name]
            else:
                words = [o for o in (*param.opts, *param.secondary_opts) if o.startswith("--")]
                if path != "renamerd":  # the global options are documented once, at the root
                    words = [w for w in words if w not in ("--help", "--config", "--verbose")]
            missing += [f"{path} {w}" for w in words if not documented(w, text)]
    assert not missing, f"docs/cli.md does not name these in their command's section: {missing}"


def test_cli_walk_sees_groups_and_their_commands() -> None:
    paths = dict(cli_commands())
    assert {"renamerd", "renamerd users", "renamerd users create", "renamerd run",
            "renamerd jobs retry"} <= set(paths)


# ---- README


def test_readme_is_short_and_keeps_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES, (
        f"README.md is over {README_MAX_LINES} lines: move reference material into docs/")
    assert re.search(r"^make run\b", text, re.M) and re.search(r"^make test\b", text, re.M)


def test_every_dependency_is_in_the_readme_table() -> None:
    text = README.read_text(encoding="utf-8")
    table = text[text.index("## Dependencies"):]
    table = table[: table.find("\n## ", 1)].lower().replace("_", "-")
    missing = [n for n in dependency_names() if not documented(n.lower().replace("_", "-"), table)]
    assert not missing, f"the README's dependency table lacks: {missing}"


# ---- links


def test_every_relative_link_resolves() -> None:
    broken = []
    for page in markdown_pages():
        for target in relative_links(page):
            path_part, _, anchor = target.partition("#")
            dest = (page.parent / path_part).resolve() if path_part else page
            where = f"{page.relative_to(ROOT)}: {target}"
            if not dest.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(
                    dest.read_text(encoding="utf-8")):
                broken.append(f"{where} (no such heading)")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_every_docs_page_is_reachable_from_the_index() -> None:
    seen: set[Path] = set()
    todo = [DOCS / "README.md"]
    while todo:
        page = todo.pop()
        if page in seen or not page.is_file():
            continue
        seen.add(page)
        for target in relative_links(page):
            dest = (page.parent / target.partition("#")[0]).resolve()
            if dest.suffix == ".md" and dest.is_relative_to(DOCS.resolve()):
                todo.append(dest)
    orphans = [str(p.relative_to(ROOT)) for p in sorted(DOCS.rglob("*.md")) if p.resolve() not in seen]
    assert not orphans, f"pages no link from docs/README.md leads to: {orphans}"


def test_the_link_check_sees_links_and_anchors(tmp_path: Path) -> None:
    page = "# A title\n\n## Two `words`: here\n\nSee [b](other.md#x) and [c](#two-words-here).\n" \
           "```\n[not](a-link.md)\n```\n[ref]: ./ref.md\n"
    md = tmp_path / "p.md"
    md.write_text(page)
    assert relative_links(md) == ["other.md#x", "#two-words-here", "./ref.md"]
    assert anchors(page) == {"a-title", "two-words-here"}


def _section(text: str, heading: str) -> str:
    """The text under `## heading`, up to the next `## `."""
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def test_every_job_state_is_documented() -> None:
    from renamerd.service.jobs.states import STATES

    readme = README.read_text(encoding="utf-8")
    job_line = readme[readme.index("- **Job**"):readme.index("- **Engine**")]
    table = _section((DOCS / "operations.md").read_text(encoding="utf-8"), "Job states")
    cli_md = (DOCS / "cli.md").read_text(encoding="utf-8")
    choices = re.search(r"`--state \[([^\]]+)\]` \| all \| only jobs in this state", cli_md)
    assert choices is not None
    for state in STATES:
        assert state in job_line, f"README's job states lack {state}"
        assert f"\n| `{state}` |" in table, f"operations.md's job states lack {state}"
    assert choices.group(1).split("\\|") == list(STATES)


def test_every_config_section_has_its_reload_row_and_no_page_denies_reload() -> None:
    table = _section((DOCS / "operations.md").read_text(encoding="utf-8"), "Reload")
    for name in Settings.model_fields:
        if name == "source_file":
            continue
        row = f"[[{name}]]" if name == "connections" else f"[{name}]"
        assert f"\n| `{row}`" in table, f"the reload table lacks {row}"
    for page in [README, *DOCS.rglob("*.md")]:
        assert "there is no reload" not in page.read_text(encoding="utf-8"), page


def test_operations_says_how_to_back_up_and_restore() -> None:
    backup = _section((DOCS / "operations.md").read_text(encoding="utf-8"),
                      "Backup and restore")
    for needle in (".backup", "VACUUM INTO", "-wal", "pg_dump", "pg_restore", "secrets.key",
                   "RENAMERD_SECRETS__KEY", "state_dir"):
        assert needle in backup, needle

