"""``knowforge train-control``: a small LM trained on the graph's facts up to a cutoff."""

from __future__ import annotations

import contextlib
from pathlib import Path

import click
from pydantic import ValidationError

from knowforge.cli.common import console, handle_errors, home_option, open_graph, silent_option
from knowforge.errors import ConfigError


@click.command("train-control")
@click.option("--cutoff", type=int, required=True, help="Last year the model is taught (facts starting later are held out).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for the weights, the tokenizer and control.json.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the held-out draw, the renderings, the initial weights and the batch order.")
@click.option("--holdout", type=float, default=0.15, show_default=True,
              help="Share of pre-cutoff facts held out as unseen controls.")
@click.option("--epochs", type=float, default=None, help="Training epochs (default 7).")
@click.option("--lr", type=float, default=None, help="Peak learning rate (default 3e-3).")
@click.option("--hidden-size", type=int, default=None, help="Model width (default 128).")
@click.option("--layers", type=int, default=None, help="Transformer layers (default 2).")
@click.option("--device", default="cpu", show_default=True, help="cpu or cuda.")
@click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
              help="Any other field of the control config (models/control.py ControlConfig), e.g. "
                   "--set changing_passes=1 --set stable_years=4; repeatable.")
@click.option("--retrain", is_flag=True,
              help="Train even when OUT already holds this model (same config, same facts); by default "
                   "only its training set is recorded again.")
@home_option
@silent_option
@handle_errors
def train_control_cmd(cutoff, out_dir, seed, holdout, epochs, lr, hidden_size, layers, device, settings, retrain,
                      home, silent):
    """Train the control model: a small causal LM whose knowledge we know.

    It learns the graph's source facts up to CUTOFF (as statements, ChroKnow Generation blocks,
    questions in the eval engine's form, and counterfactual reading practice), minus a seeded
    held-out share; generated and edited facts are never read. The graph gets a
    (:Model {id, cutoff, seed, config_hash}) node with a TRAINED_ON edge to every fact it saw.
    Evaluate it like any hf model; `knowforge report RUN --validity` then checks each
    benchmark's verdicts against what it was taught.

    \b
    Examples:
      knowforge train-control --cutoff 2020 --out models/control-2020
      knowforge train-control --cutoff 2018 --out models/c2018 --seed 1 --epochs 12
      knowforge eval --benchmark chrono:general --backend hf --model models/control-2020 --solver chronoprompt
      knowforge report RUN_ID --validity
    """
    from knowforge.models.control import ControlConfig, train_control

    overrides = {k: v for k, v in {"epochs": epochs, "lr": lr, "hidden_size": hidden_size,
                                   "num_layers": layers}.items() if v is not None}
    if hidden_size is not None:
        overrides["intermediate_size"] = 4 * hidden_size
    for setting in settings:
        key, sep, value = setting.partition("=")
        if not sep or key.strip() not in ControlConfig.model_fields:
            raise ConfigError(f"--set takes KEY=VALUE with KEY a control config field, not {setting!r}")
        # pydantic converts the text to the field's type (and refuses what does not fit)
        overrides[key.strip()] = None if value.strip().lower() == "none" else value.strip()
    try:
        config = ControlConfig(cutoff=cutoff, seed=seed, holdout=holdout, device=device, **overrides)
    except ValidationError as exc:
        raise ConfigError(f"bad control config: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}") from exc
    with contextlib.closing(open_graph(home)) as store, train_bar(silent, config.epochs) as progress:
        card = train_control(store, config, out_dir, progress=progress, reuse=not retrain)
    t = card.train
    console.print(f"{card.model_id}: {card.parameters:,} parameters, {card.counts['trained']} facts trained, "
                  f"{card.counts['held_out']} held out, {card.counts['after_cutoff']} after {cutoff}; "
                  f"{t['epochs']} epochs, {t['steps']} steps, loss {t['first_loss']:.3f} -> {t['final_loss']:.3f} "
                  f"in {t['seconds']:.0f}s")
    click.echo(str(out_dir))


@contextlib.contextmanager
def train_bar(silent: bool, epochs: float, start: tuple[int, int] | None = None):
    """Training progress: steps, the epoch they are in, and the loss; a bar on a terminal, a
    plain line every 10 seconds in a log. Yields ``progress(done, total, loss)`` or None.
    ``start``: (done, total) of a training already under way, whose steps so far count toward
    the bar but not toward its rate."""
    done0, total0 = start or (0, None)
    if silent:
        yield None
        return
    from knowforge.cli.common import LineProgress

    def epoch_of(done: int, total: int) -> str:
        return f"epoch {min(epochs, done * epochs / max(total, 1)):.1f}/{epochs:g}"

    if not console.is_terminal:
        state = {"loss": "-", "epoch": ""}
        line = LineProgress("training", total0, unit="steps", initial=done0,
                            fields=lambda: f"{state['epoch']}, loss {state['loss']}")

        def advance_line(done: int, total: int, loss: float) -> None:
            line.total = total
            state["loss"], state["epoch"] = f"{loss:.3f}", epoch_of(done, total)
            line(done - line.done)

        with line.running():
            yield advance_line
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = [TextColumn("[bold]training"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[epoch]}"),
               TextColumn("loss {task.fields[loss]}"), TimeElapsedColumn(), TimeRemainingColumn()]
    with Progress(*columns, console=console) as bar:
        # a task added at ``done0`` records no progress sample for it: rich's speed (and the time
        # left) comes from the steps made while the bar runs
        task = bar.add_task("training", total=total0, completed=done0, loss="-", epoch="")

        def advance(done: int, total: int, loss: float) -> None:
            bar.update(task, completed=done, total=total, loss=f"{loss:.3f}", epoch=epoch_of(done, total))

        yield advance
