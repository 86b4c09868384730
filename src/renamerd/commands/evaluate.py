"""`renamerd eval`: measure the engine on a labelled folder (DIRECTORY/truth.json)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from renamerd.commands.context import AppContext, CliError, app_command


@app_command(name="eval")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="print the report as JSON")
@click.option("--show-errors", is_flag=True, help="list the documents with a wrong field")
def eval_cmd(app: AppContext, directory: str, as_json: bool, show_errors: bool) -> None:
    """Measure the engine on DIRECTORY/truth.json: accuracy per field, calibration of the
    confidence, median time per document. Issuers are compared leniently (case, accents,
    punctuation and legal forms ignored; difflib ratio >= 0.9)."""
    from tqdm import tqdm

    from renamerd.engine.evaluation import evaluate, load_truth

    root = Path(directory)
    try:
        total = len(load_truth(root))
    except (OSError, ValueError) as err:
        raise CliError(f"{root / 'truth.json'}: {err}") from err
    bar: Any = tqdm(total=total, unit="doc", file=sys.stderr, leave=False,
                    disable=total < 3)
    report = evaluate(root, config=app.settings.engine_config(),
                      progress=lambda _name: bar.update(1))
    bar.close()
    if as_json:
        click.echo(json.dumps(report.as_dict(), indent=2))
    else:
        for line in report.lines():
            click.echo(line)
    if show_errors:
        for doc in report.docs:
            wrong = {f: (doc.predicted.get(f), doc.truth.get(f))
                     for f, ok in doc.correct.items() if not ok}
            if wrong or doc.error:
                click.echo(f"{doc.file}: {doc.error or wrong}", err=as_json)


def register(cli: click.Group) -> None:
    cli.add_command(eval_cmd)  # type: ignore[arg-type]
