"""`renamerd rename`: suggest names for local files, optionally file them (journaled), or rename
them through a remote renamerd API."""

from __future__ import annotations

import datetime as dt
import errno
import json
import os
import secrets
import shutil
import sys
from pathlib import Path
from typing import Any

import click

from renamerd.commands.context import AppContext, CliError, app_command
from renamerd.engine.types import (
    BELOW_CONFIDENCE,
    LANGUAGES,
    STRATEGIES,
    TEMPLATE_IDS,
    TEMPLATE_MODES,
)


def collect_files(paths: tuple[str, ...]) -> list[Path]:
    """Files named, and files under named folders (recursively, hidden ones skipped), sorted."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                out.extend(Path(root) / f for f in sorted(files) if not f.startswith("."))
        elif path.is_file():
            out.append(path)
        else:
            raise CliError(f"{raw}: no such file or folder")
    return out


def free_destination(folder: Path, name: str, limit: int = 1000) -> Path:
    """The first of name.ext, "name (2).ext", ... that does not exist in `folder`."""
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    for n in range(1, limit + 1):
        candidate = name if n == 1 else (f"{stem} ({n}).{ext}" if ext else f"{stem} ({n})")
        if not (folder / candidate).exists():
            return folder / candidate
    raise CliError(f"no free name for {name} in {folder}")


def move_no_replace(src: Path, folder: Path, name: str) -> Path:
    """Move `src` into folder/name (or "name (2)"...), never replacing a file; returns the
    destination. Atomic on one filesystem (link + unlink); copies across filesystems."""
    folder.mkdir(parents=True, exist_ok=True)
    for _ in range(20):
        dest = free_destination(folder, name)
        try:
            os.link(src, dest)
        except FileExistsError:
            continue  # taken between the check and the link: ask again
        except OSError as err:
            if err.errno not in (errno.EXDEV, errno.EPERM, errno.ENOTSUP, errno.EMLINK):
                raise
            try:
                with open(src, "rb") as fin, open(dest, "xb") as fout:
                    shutil.copyfileobj(fin, fout)
                shutil.copystat(src, dest)
            except FileExistsError:
                continue
        src.unlink()
        return dest
    raise CliError(f"could not find a free name for {name} in {folder}")


def _journal(app: AppContext, old: Path, new: Path, batch: str) -> None:
    from renamerd.storage.models import JournalEntry

    with app.db.write_session() as session:
        session.add(JournalEntry(connection="", file_id=str(old), old_path=str(old),
                                 new_path=str(new), batch=batch))


@app_command(name="rename")
@click.argument("paths", nargs=-1, metavar="FILE_OR_DIR...")
@click.option("--strategy", type=click.Choice(STRATEGIES), default="root", show_default=True,
              help="folder strategy")
@click.option("--template-mode", type=click.Choice(TEMPLATE_MODES), default="auto",
              show_default=True)
@click.option("--custom-template", default=None, metavar="TEXT",
              help="natural-language naming/filing instructions")
@click.option("--template-id", type=click.Choice(TEMPLATE_IDS), default=None)
@click.option("--language", type=click.Choice(LANGUAGES), default="auto", show_default=True)
@click.option("--below-confidence", type=click.Choice(BELOW_CONFIDENCE), default=None,
              help="documents under the threshold: keep (in place), review (move to the "
                   "review folder) or rename anyway [default: from [engine]]")
@click.option("--confidence-threshold", type=click.FloatRange(0, 1), default=None,
              help="0..1 [default: from [engine]]")
@click.option("--explain", is_flag=True,
              help="show how --custom-template was understood (the compiled rules, and "
                   "what was not understood and why); FILE_OR_DIR may then be omitted")
@click.option("--json", "as_json", is_flag=True, help="print JSON (one array)")
@click.option("--apply", is_flag=True, help="move the files into --target (journaled)")
@click.option("--target", type=click.Path(file_okay=False), default=None,
              help="folder the files are filed into with --apply")
@click.option("--server", default=None, help="rename through a renamerd API at this URL")
@click.option("--token", default=None, envvar="RENAMERD_TOKEN", help="API token (--server)")
def rename_cmd(app: AppContext, paths: tuple[str, ...], strategy: str, template_mode: str,
               custom_template: str | None, template_id: str | None, language: str,
               below_confidence: str | None, confidence_threshold: float | None,
               explain: bool, as_json: bool, apply: bool, target: str | None,
               server: str | None, token: str | None) -> None:
    """Suggest names (and folders) for documents; --apply files them into --target.

    A dry run by default. Moves made with --apply are journaled: undo them with
    `renamerd undo --batch ID`. Documents the confidence policy keeps ("keep") are not
    moved; "review" ones go to the review folder under --target with their own name.
    """
    from tqdm import tqdm

    from renamerd.engine import RenameOptions

    if apply and not target:
        raise CliError("--apply needs --target DIR", exit_code=2)
    if template_mode == "custom" and not custom_template:
        raise CliError("--template-mode custom needs --custom-template", exit_code=2)
    if explain and not custom_template:
        raise CliError("--explain needs --custom-template", exit_code=2)
    if not paths and not explain:
        raise CliError("give at least one FILE_OR_DIR", exit_code=2)
    options = RenameOptions(strategy=strategy, template_mode=template_mode,
                            custom_template=custom_template, template_id=template_id,
                            language=language, below_confidence=below_confidence,
                            confidence_threshold=confidence_threshold)
    explained = _explain(custom_template, as_json) if explain else None
    files = collect_files(paths)
    if server:
        _remote(server, token, files, options, as_json)
        return
    config = app.settings.engine_config()
    batch = f"{dt.datetime.now(dt.UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
    results: list[dict[str, Any]] = []
    moved = failed = 0
    bar: Any = tqdm(files, unit="file", file=sys.stderr, leave=False,
                    disable=len(files) < 3)
    for path in bar:
        entry = _rename_one(app, path, options, config, target if apply else None, batch)
        moved += "newPath" in entry
        failed += "error" in entry
        results.append(entry)
        if not as_json:
            bar.clear()
            click.echo(_line(entry))
    bar.close()
    if as_json:
        body: Any = results if explained is None else {"instructions": explained,
                                                       "results": results}
        click.echo(json.dumps(body, ensure_ascii=False, indent=2))
    if apply:
        click.echo(f"moved {moved} file(s), {failed} failed", err=as_json)
        if moved:
            click.echo(f"undo with: renamerd undo --batch {batch}", err=as_json)
    if failed and not moved and failed == len(files):
        raise CliError(f"{failed} file(s) could not be renamed")


def _rename_one(app: AppContext, path: Path, options: Any, config: Any, target: str | None,
                batch: str) -> dict[str, Any]:
    """Rename one file (and move it into `target` when given, journaled); returns its JSON
    entry: the API result, "newPath" when moved, or "error"."""
    from renamerd.engine import rename
    from renamerd.engine.types import EngineError

    entry: dict[str, Any] = {"path": str(path)}
    try:
        result = rename(path.read_bytes(), path.name, options, config)
        entry.update(result.to_api())
        kept = result.kept
        stays = kept is not None and kept.reason == "below_confidence" and kept.policy == "keep"
        if target and not stays:
            folder = Path(target).joinpath(*[p for p in result.folder_path.split("/") if p])
            old = path.resolve()
            new = move_no_replace(old, folder.resolve(), result.suggested_filename)
            try:
                _journal(app, old, new, batch)
            except Exception:
                os.replace(new, old)  # not journaled: put it back
                raise
            entry["newPath"] = str(new)
    except (EngineError, OSError, ValueError) as err:
        entry["error"] = str(err)
    return entry


def _explain(custom_template: str | None, as_json: bool) -> dict[str, Any]:
    """Compile the instructions, print them (unless JSON is wanted) and return them."""
    from renamerd.engine.instructions import compile_template

    rules = compile_template(custom_template)
    explained: dict[str, Any] = {"rules": rules.describe(),
                 "notUnderstood": [{"text": str(m), "reason": m.reason}
                                   for m in rules.not_understood]}
    if not as_json:
        click.echo("rules (tried in this order):")
        for line in explained["rules"] or ["(none)"]:
            click.echo(f"  {line}")
        if rules.not_understood:
            click.echo("not understood:")
            for item in rules.not_understood:
                click.echo(f"  \"{item}\": {item.reason}")
    return explained


def _line(entry: dict[str, Any]) -> str:
    if "error" in entry:
        return f"{entry['path']}: error: {entry['error']}"
    dest = entry.get("newPath") or "/".join(
        p for p in (entry.get("folderPath", ""), entry["suggestedFilename"]) if p)
    kept = entry.get("kept")
    note = f"  [{kept['message']}]" if kept else ""
    return f"{entry['path']} -> {dest}  ({entry['confidence']:.2f}){note}"


def _remote(server: str, token: str | None, files: list[Path], options: Any,
            as_json: bool) -> None:
    """Remote mode: delegate to renamerd.client.rename_files (the API engineer's client)."""
    if not token:
        raise CliError("--server needs --token (or RENAMERD_TOKEN)", exit_code=2)
    try:
        from renamerd.client import rename_files
    except ImportError as err:  # pragma: no cover - the client ships with renamerd
        raise CliError("remote mode is not available in this build") from err
    results = rename_files(server, token, files, options)
    if as_json:
        click.echo(json.dumps(results, ensure_ascii=False, indent=2))
        return
    for entry in results:
        click.echo(_line(entry))


def register(cli: click.Group) -> None:
    cli.add_command(rename_cmd)  # type: ignore[arg-type]
