"""How verdicts, rows and sets look as Rich Text (never markup: names are shown literally)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rich.text import Text

from ..dialects import dialect_for
from ..dialects.base import relative
from ..model import EvalSet, EvaluatorDef, Row, Verdict
from ..output_paths import describe_target
from ..report.text import format_duration
from ..scoring import scorer_of
from ..textsafe import one_line, printable
from .path_text import path_tail
from .state import QUEUED, RUNNING, RunState

GLYPHS = {Verdict.PASS: ("✔", "bold green"), Verdict.FAIL: ("✘", "bold red"), Verdict.ERROR: ("!", "bold yellow")}
UNKNOWN = ("○", "dim")
FLAKY_MARK, FLAKY_STYLE = "≈", "bold magenta"  # a row that passed and failed the same way: trust neither
RUNNING_GLYPH = ("◐", "bold cyan")
BADGE_NAME = 18  # an evaluator's name in a row's badge is cut to this
SHORTEST_NAME = 20  # a row's name cut shorter than this (`the capital of Fra…`) says too little: badges give way


def plain(value: str, limit: int = 200) -> Text:
    """User-derived text as a Text object: DataTable and Tab would parse a plain str as markup."""
    return Text(one_line(value, limit))


def project_file(root: Path | None, path: Path, limit: int = 80) -> str:
    """A file of the project as its user finds it: its path from the project's folder (posix), cut at the start
    when longer than `limit` at a `/` (its end names the file: `path_tail`)."""
    return path_tail(printable(relative(root, path) if root is not None else str(path), keep_newlines=False), limit)


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


@dataclass(slots=True)
class RowLabel:
    """A row's line in the sets pane, in the parts that give way differently when the pane is too narrow:
    the verdict glyph, the row's name, one badge per evaluator that scores it (`<ref> ✔/✘`) and what
    follows them (samples, flaky, duration, score). `text` is the whole line; `fitted` cuts it to a width."""

    glyph: Text
    name: Text
    badges: list[tuple[str, Verdict | None]] = field(default_factory=list)
    tail: list[Text] = field(default_factory=list)  # parts after the badges, each shown after two spaces

    @property
    def text(self) -> Text:
        return self._assemble(self.name, [True] * len(self.badges), self.tail)

    def fitted(self, room: int) -> Text:
        """The line in at most `room` cells, every evaluator's mark kept (as `tab_labels` keeps the detail's
        tabs' marks): the parts after the badges go first (` …` marks them gone when there is room for it),
        then the row's name is cut (with `…`) to no shorter than SHORTEST_NAME, then passing evaluators'
        badges keep their mark alone, then every badge does; only then is the name cut shorter still, and
        when not even the marks fit, the line is cut at its end."""
        whole = self.text
        if whole.cell_len <= room:
            return whole
        named = [True] * len(self.badges)
        for kept in range(len(self.tail) - 1, -1, -1):  # the badges, the name and some of the tail fit
            line = self._assemble(self.name, named, self.tail[:kept])
            if line.cell_len + 2 <= room:
                line.append(" …", "dim")
                return line
        failing = [verdict is not Verdict.PASS for _, verdict in self.badges]
        no_names = [False] * len(self.badges)
        for shortest, names in ((SHORTEST_NAME, named), (SHORTEST_NAME, failing), (1, no_names)):
            line = self._assemble(Text(), names, [])
            left = room - line.cell_len
            if left >= min(shortest, self.name.cell_len):
                line = self._assemble(cut_text(self.name, left), names, [])
                if not self.tail or line.cell_len + 2 > room:
                    return line
                line.append(" …", "dim")
                return line
        line = self._assemble(Text(), no_names, [])
        line.truncate(room, overflow="ellipsis")
        return line

    def _assemble(self, name: Text, named: list[bool], tail: list[Text]) -> Text:
        line = self.glyph.copy()
        line.append(" ")
        line.append_text(name)
        for (ref, verdict), keep in zip(self.badges, named, strict=True):
            line.append("  ")
            line.append_text(result_badge(ref, verdict) if keep else verdict_text(verdict))
        for part in tail:
            line.append("  ", part.style)
            line.append_text(part)
        return line


def cut_text(text: Text, cells: int) -> Text:
    """`text` in at most `cells` cells, `…` marking a cut (after no space: `the capital…`)."""
    if text.cell_len <= cells:
        return text.copy()
    kept = text.copy()
    kept.truncate(max(cells - 1, 0))
    kept.rstrip()
    if cells > 0:
        kept.append("…", text.style)
    return kept


def result_badge(ref: str, verdict: Verdict | None) -> Text:
    """`<ref> ✔`: an evaluator of the row and its latest verdict."""
    badge = Text(one_line(ref, BADGE_NAME) + " ", "dim")
    badge.append_text(verdict_text(verdict))
    return badge


def row_label(state: RunState, eval_set: EvalSet, row: Row) -> RowLabel:
    status = state.status.get(eval_set.key_of(row))
    verdict = state.row_verdict(eval_set, row)
    if status == RUNNING:
        glyph, style = RUNNING_GLYPH
        mark = Text(glyph, style)
    else:
        mark = verdict_text(verdict, dim=status == QUEUED)
    label = RowLabel(mark, Text(one_line(row.label, 80), "dim" if status == QUEUED else ""))
    refs = dialect_for(eval_set.dialect).refs_of(eval_set, row)
    results = state.row_results(eval_set, row)
    if len(refs) > 1:
        label.badges = [(ref, result.verdict if result else None) for ref, result in zip(refs, results, strict=True)]
    known = [r for r in results if r is not None]
    sampled = [r for r in known if r.samples]
    flaky = any(r.flaky for r in known)
    tail = label.tail
    if sampled:  # [runner] repeat: the fewest samples any evaluator passed, k/N
        tail.append(Text(min(sampled, key=lambda r: r.passed_samples).samples_text, FLAKY_STYLE if flaky else "dim"))
    if flaky:
        part = tail.pop() if sampled else Text()
        part.append(f"{' ' if sampled else ''}{FLAKY_MARK} flaky", FLAKY_STYLE)
        tail.append(part)
    if known:
        duration = Text(format_duration(max(r.duration_ms for r in known)), "dim")
        if any(r.reused for r in known):
            duration.append(" ↺", "dim")  # re-scored from the last run: nothing but evals/ changed
        tail.append(duration)
        graded = [r for r in known if r.score not in (0.0, 1.0)]
        if graded:
            tail.append(Text(f"score {min(r.score for r in graded):.2f}", "dim"))
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
