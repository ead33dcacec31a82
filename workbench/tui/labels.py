"""How verdicts, rows and sets look as Rich Text (never markup: names are shown literally)."""

from __future__ import annotations

from rich.text import Text

from ..dialects import dialect_for
from ..model import EvalSet, EvaluatorDef, Result, Row, Verdict
from ..output_paths import describe_target
from ..report.text import format_duration
from ..scoring import scorer_of
from ..textsafe import one_line
from .state import QUEUED, RUNNING, RunState

GLYPHS = {Verdict.PASS: ("✔", "bold green"), Verdict.FAIL: ("✘", "bold red"), Verdict.ERROR: ("!", "bold yellow")}
UNKNOWN = ("○", "dim")
FLAKY_MARK, FLAKY_STYLE = "≈", "bold magenta"  # a row that passed and failed the same way: trust neither
RUNNING_GLYPH = ("◐", "bold cyan")


def plain(value: str, limit: int = 200) -> Text:
    """User-derived text as a Text object: DataTable and Tab would parse a plain str as markup."""
    return Text(one_line(value, limit))


def compared(evaluator: EvaluatorDef) -> tuple[str, ...]:
    """What the evaluator looks at, as parts a narrow column cuts between: the output's paths
    (`details.rawScore`, `details.band`), or, for a type scored from the trace, what of it."""
    scorer = scorer_of(evaluator)
    if scorer is not None and scorer.compares:
        return (scorer.compares,)
    return tuple(part.strip() for part in describe_target(evaluator.target_output_key).split(", "))


def verdict_text(verdict: Verdict | None, *, word: bool = False, dim: bool = False) -> Text:
    glyph, style = GLYPHS.get(verdict, UNKNOWN) if verdict else UNKNOWN
    text = f"{glyph} {verdict.value}" if word and verdict else glyph
    return Text(text, f"{style} dim" if dim else style)


def result_badge(result: Result | None, ref: str) -> Text:
    badge = Text(one_line(ref, 18) + " ", "dim")
    badge.append_text(verdict_text(result.verdict if result else None))
    return badge


def row_label(state: RunState, eval_set: EvalSet, row: Row) -> Text:
    status = state.status.get(eval_set.key_of(row))
    verdict = state.row_verdict(eval_set, row)
    if status == RUNNING:
        glyph, style = RUNNING_GLYPH
        label = Text(glyph, style)
    else:
        label = verdict_text(verdict, dim=status == QUEUED)
    label.append(" ")
    label.append(one_line(row.label, 80), "dim" if status == QUEUED else "")
    refs = dialect_for(eval_set.dialect).refs_of(eval_set, row)
    results = state.row_results(eval_set, row)
    if len(refs) > 1:
        for ref, result in zip(refs, results, strict=True):
            label.append("  ")
            label.append_text(result_badge(result, ref))
    known = [r for r in results if r is not None]
    sampled = [r for r in known if r.samples]
    flaky = any(r.flaky for r in known)
    if sampled:  # [runner] repeat: the fewest samples any evaluator passed, k/N
        label.append(f"  {min(sampled, key=lambda r: r.passed_samples).samples_text}", FLAKY_STYLE if flaky else "dim")
    if flaky:
        label.append(f" {FLAKY_MARK} flaky", FLAKY_STYLE)
    if known:
        label.append(f"  {format_duration(max(r.duration_ms for r in known))}", "dim")
        if any(r.reused for r in known):
            label.append(" ↺", "dim")  # re-scored from the last run: nothing but evals/ changed
        graded = [r for r in known if r.score not in (0.0, 1.0)]
        if graded:
            label.append(f"  score {min(r.score for r in graded):.2f}", "dim")
    return label


def set_label(state: RunState, eval_set: EvalSet, show_scope: bool) -> Text:
    passed, total = state.set_counts(eval_set)
    name = f"{eval_set.scope}/{eval_set.file_name}" if show_scope else eval_set.file_name
    label = Text(one_line(name, 60), "bold")
    if eval_set.name:
        label.append(f"  {one_line(eval_set.name, 40)}", "italic dim")
    style = "green" if total and passed == total else ("red" if total else "dim")
    label.append(f"  {passed}/{total}", style)
    metric = state.set_metrics.get((eval_set.scope, eval_set.file_name))
    if metric:
        label.append(f"  {one_line(metric, 80)}", "cyan")
    if not eval_set.evaluator_refs:
        label.append("  (no evaluatorRefs)", "yellow")
    return label
