"""The human report: a line per result as it finishes, then problems and a summary line."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from .. import jsonio
from ..dialects import dialect_for
from ..dialects.base import digest_of
from ..events import Event, IterationReport, IterationStarted, ResultReady, RowStarted
from ..model import Problem, Project, Result, RowKey, Summary, Verdict, error_problems, is_green
from ..textsafe import counted, one_line, printable
from .metrics import SetMetricLine, set_metrics
from .reuse_text import format_reuse_files, format_reuse_rows

if TYPE_CHECKING:
    from ..actions.project_check import CheckReport

_COLORS = {Verdict.PASS: "32", Verdict.FAIL: "31", Verdict.ERROR: "33"}
FLAKY_COLOR = "35"  # magenta: neither a pass nor a fail to trust

Digest = Callable[[Result], str]  # why a result did not pass, in its format's words


def digests_of(project: Project) -> Digest:
    """Each result's account in the words of the format its set belongs to (`Digests.digest`)."""
    formats = {(s.scope, s.file_name): s.dialect for s in project.sets}

    def digest(result: Result) -> str:
        name = formats.get((result.scope, result.set_file))
        try:
            return digest_of(dialect_for(name), result) if name is not None else result.detail
        except LookupError:  # a set of a format no longer registered (an old history entry)
            return result.detail
    return digest


def use_color(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stream.isatty()


def _paint(text: str, code: str, color: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if color else text


def format_duration(ms: float) -> str:
    return f"{ms:.0f}ms" if ms < 1000 else f"{ms / 1000:.1f}s"


def result_label(result: Result, show_scope: bool, evaluators: list[str] | None = None) -> str:
    where = result.set_key.shown(show_scope)
    name = result.label
    return one_line(f"{where} › {name} [{', '.join(evaluators or [result.evaluator])}]", 160)


def format_result(result: Result, *, show_scope: bool = False, color: bool = False,
                  evaluators: list[str] | None = None, inputs: bool = True, digest: Digest | None = None) -> str:
    """One result's line, and for a non-passing one its inputs (unless `inputs` is False) and reason
    (`digest`'s words, by default the scorer's detail). `evaluators` names every evaluator the line
    stands for, when several failed the same way."""
    verdict = _paint(f"{result.verdict.value:<5}", _COLORS[result.verdict], color)
    line = f"{verdict} {result_label(result, show_scope, evaluators)}  {format_duration(result.duration_ms)}"
    if result.samples:  # [runner] repeat: k/N samples passed, and 0 < k < N is flaky
        line += "  " + _paint(f"{result.samples_text}{' flaky' if result.sample_flaky else ''}",
                              FLAKY_COLOR if result.sample_flaky else _COLORS[result.verdict], color)
    if result.flaky_since is not None:  # history found another verdict on the same ground (`history N` shows it)
        line += "  " + _paint(f"flaky (not {result.verdict.value} in iteration {result.flaky_since})", FLAKY_COLOR,
                              color)
    if result.reused:
        line += " ↺"  # re-scored from the row's last run: nothing but evals/ changed
    if result.score not in (0.0, 1.0):
        line += f"  score {result.score:.2f}"
    if result.verdict is not Verdict.PASS:
        if result.inputs and inputs:
            line += "\n      inputs: " + one_line(jsonio.dumps(result.inputs), 200)
        reason = digest(result) if digest is not None else result.detail
        if reason:
            detail = printable(reason)
            line += "\n" + "\n".join(f"      {part}" for part in detail.splitlines()[:40])
    return line


def format_row(results: list[Result], *, show_scope: bool = False, color: bool = False,
               quiet: bool = False, digest: Digest | None = None) -> list[str]:
    """A row's lines: one per result (no PASS lines when `quiet`). Non-passing results with the same
    verdict and reason — a target that crashed errors every evaluator the same way — share one line
    that names them all, and the row's inputs are printed once."""
    entries: list[tuple[Result, list[str]]] = []
    for result in results:
        if result.passed:
            if not quiet:
                entries.append((result, [result.evaluator]))
            continue
        same = next((refs for first, refs in entries
                     if first.verdict is result.verdict and first.detail == result.detail), None)
        if same is not None:
            same.append(result.evaluator)
        else:
            entries.append((result, [result.evaluator]))
    lines: list[str] = []
    inputs_shown = False
    for result, refs in entries:
        lines.append(format_result(result, show_scope=show_scope, color=color, evaluators=refs,
                                   inputs=not inputs_shown, digest=digest))
        inputs_shown = inputs_shown or not result.passed
    return lines


def format_summary(summary: Summary, problems: list[Problem], duration_s: float, color: bool = False) -> str:
    errors = error_problems(problems)
    text = f"{summary.passed} passed, {summary.failed} failed, {counted(summary.errors, 'error')}"
    if errors:
        text += f", {counted(len(errors), 'file problem')}"
    text += f" ({counted(summary.total, 'result')} in {duration_s:.1f}s)"
    return _paint(text, "32" if is_green(summary.passed, summary.total, errors) else "31", color)


def format_flaky(report: IterationReport, show_scope: bool = False) -> list[str]:
    """A line per row flaky over time: its verdict now differs from an earlier run on the very same ground
    (known once history recorded the iteration)."""
    lines: list[str] = []
    seen: set[RowKey] = set()
    for result in report.results:
        if result.flaky_since is None or result.row_key in seen:
            continue
        seen.add(result.row_key)
        where = result.set_key.shown(show_scope)
        lines.append(one_line(f"flaky: {where} › {result.label} {result.verdict.value} now, not in iteration "
                              f"{result.flaky_since}, with nothing it depends on changed", 300))
    return lines


def format_set_metric(line: SetMetricLine, show_scope: bool = False) -> str:
    return one_line(f"metric: {line.describe(show_scope)}", 300)


def format_problem(problem: Problem, *, counted: bool = True) -> str:
    """`problem: FILE: message` (or `warning:`), and under it the excerpt's lines (a JSON mistake's line and
    caret); not `counted`: a narrowed run's problem of another file."""
    tag = "problem" if problem.is_error else "warning"
    if not counted and problem.is_error:
        tag += " (not counted: none of this run's rows is in this file)"
    text = one_line(f"{tag}: {problem.file}: {problem.message}", 400)
    return "\n".join([text, *("  " + one_line(line, 200) for line in problem.excerpt)])


def format_row_warning(problem: Problem) -> str:
    """A problem pinned to a row, printed under that row's results."""
    return "      " + one_line(f"warning: {problem.message}", 400)


def format_check(report: CheckReport, *, verbose: bool = False) -> list[str]:
    """`workbench check`'s lines: every problem, then a verdict with what was checked. `verbose` (`check -v`)
    adds, before the verdict, what re-scoring does not look at and what `run --reuse` would do with each row."""
    lines = [format_problem(problem) for problem in report.problems]
    checked = f"{counted(report.sets, 'set')}, {counted(report.rows, 'row')}, {counted(report.evaluators, 'evaluator')}"
    if report.workflow:
        checked += f"; rows checked against {report.workflow}"
    if verbose and report.reuse is not None:
        lines += [*format_reuse_files(report.reuse), *format_reuse_rows(report.reuse)]
    verdict = "check passed" if report.passed else "check failed"
    lines.append(f"{verdict}: {counted(len(report.errors), 'error')}, {counted(len(report.warnings), 'warning')} "
                 f"({checked})")
    return lines


class TextReporter:
    """Streams results to `out` in file order (a row's lines wait for the rows before it, so two runs
    print the same order whatever the concurrency) and a progress line to `err` on a terminal."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None, *, results: bool = True,
                 quiet: bool = False) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.results = results
        self.quiet = quiet  # failures and the summary only
        self.color = use_color(self.out)
        self.progress = self.err.isatty() and not os.environ.get("WORKBENCH_NO_PROGRESS")
        self.show_scope = False
        self._progress_shown = False
        self._total = 0
        self._done = 0
        self._order: list[RowKey] = []
        self._next = 0
        self._waiting: dict[RowKey, list[Result]] = {}
        self._complete: set[RowKey] = set()
        self._row_warnings: dict[RowKey, list[Problem]] = {}
        self._warned: set[RowKey] = set()  # rows whose warnings were printed with them
        self._digest: Digest | None = None
        self._started: set[RowKey] = set()
        self._names: dict[RowKey, str] = {}  # each planned row's display name, for saying which did not finish

    def __call__(self, event: Event) -> None:
        if isinstance(event, IterationStarted):
            self._total, self._done = event.total_rows, 0
            self._order, self._next = list(event.rows), 0
            self._waiting.clear()
            self._complete.clear()
            self.show_scope = len(event.project.scopes) > 1
            self._digest = digests_of(event.project)
            self._row_warnings.clear()
            self._warned.clear()
            self._started.clear()
            self._names = {eval_set.key_of(row): row.label for eval_set in event.project.sets for row in eval_set.rows}
            for problem in event.project.problems:
                if problem.row is not None:
                    self._row_warnings.setdefault(problem.row, []).append(problem)
            self._draw_progress()
        elif isinstance(event, RowStarted):
            self._started.add(event.key)
            self._names.setdefault(event.key, event.row_name or event.key.row_id)
            self._draw_progress()
        elif isinstance(event, ResultReady):
            self._done = event.done_rows
            key = event.result.row_key
            self._waiting.setdefault(key, []).append(event.result)
            if event.row_complete:
                self._complete.add(key)
            self._flush(everything=False)
            self._draw_progress()

    def _flush(self, everything: bool) -> None:
        """Print the rows whose turn has come (all that are waiting, at the end)."""
        ready: list[tuple[RowKey, list[Result]]] = []
        while self._next < len(self._order) and (everything or self._order[self._next] in self._complete):
            key = self._order[self._next]
            ready.append((key, self._waiting.pop(key, [])))
            self._next += 1
        if everything:
            ready.extend(self._waiting.items())
            self._waiting = {}
        if ready and self.results:
            lines: list[str] = []
            for key, results in ready:
                lines.extend(self._row_lines(key, results))
            if lines:
                self._clear_progress()
                print("\n".join(lines), file=self.out)
                self.out.flush()

    def _row_lines(self, key: RowKey, results: list[Result]) -> list[str]:
        lines = format_row(results, show_scope=self.show_scope, color=self.color, quiet=self.quiet,
                           digest=self._digest)
        warnings = self._row_warnings.get(key)
        if lines and warnings:
            lines.extend(format_row_warning(problem) for problem in warnings)
            self._warned.add(key)
        return lines

    def _draw_progress(self) -> None:
        if not self.progress or not self._total:
            return
        self.err.write(f"\r\x1b[2K[{self._done}/{self._total} rows] running…")
        self.err.flush()
        self._progress_shown = True

    def clear(self) -> None:
        """Erase the progress line (before printing something else on the terminal)."""
        self._clear_progress()

    def _clear_progress(self) -> None:
        if self._progress_shown:
            self.err.write("\r\x1b[2K")
            self.err.flush()
            self._progress_shown = False

    def interrupted(self) -> None:
        """Ctrl-C or a stop signal ended the run before it finished: every result that did finish (the rows
        queued behind one still running too, which file order held back), then the rows still running when
        it was stopped and how many never started. No summary: there is no verdict of a stopped run."""
        self._flush(everything=True)
        self._clear_progress()
        if not self.results:
            return
        for line in self.unfinished_lines():
            print(line, file=self.out)
        self.out.flush()

    def unfinished_lines(self) -> list[str]:
        """What a stopped run did not finish: the rows still running, and those never started (named)."""
        running = [key for key in self._order if key in self._started and key not in self._complete]
        not_run = [key for key in self._order if key not in self._started]
        return [f"{what}: {counted(len(keys), 'row')} ({self._row_names(keys)})"
                for what, keys in (("still running when stopped", running), ("not run", not_run)) if keys]

    def _row_names(self, keys: list[RowKey], shown: int = 5) -> str:
        names = ", ".join(self._row_name(key) for key in keys[:shown])
        return names + (f" and {len(keys) - shown} more" if len(keys) > shown else "")

    def _row_name(self, key: RowKey) -> str:
        return one_line(f"{key.set.shown(self.show_scope)} › {self._names.get(key, key.row_id)}", 160)

    def finish(self, report: IterationReport, elsewhere: list[Problem] | None = None) -> None:
        """The rows still waiting, the problems, the set metrics and the summary. `elsewhere`: a narrowed
        run's problems of files none of its rows are in — shown, marked as not counted in its verdict."""
        self._flush(everything=True)
        self._clear_progress()
        if not self.results:
            return
        for problem in report.problems:
            if problem.row is None or problem.row not in self._warned:
                print(format_problem(problem), file=self.out)
        for problem in elsewhere or ():
            print(format_problem(problem, counted=False), file=self.out)
        if report.project is not None:
            for line in set_metrics(report.project, report.results):
                print(format_set_metric(line, self.show_scope), file=self.out)
        for flaky in format_flaky(report, self.show_scope):
            print(_paint(flaky, FLAKY_COLOR, self.color), file=self.out)
        print(format_summary(report.summary, report.problems, report.duration_s, self.color), file=self.out,
              flush=True)
