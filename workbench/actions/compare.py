"""Compare any two recorded runs (`workbench compare`, the TUI's `d` in the history tab): which rows were
fixed, newly fail, still fail, and which kept their verdict but changed their output — each with the diff
of its actual output, said once — and what changed in the project's files between them (from the snapshots history
keeps, `snapshots.py`), so the code diff stands beside the rows it flipped.

A side is an iteration number, or `baseline`: the committed baseline (`[baseline] path`). The baseline keeps
verdicts only; when the iteration it was blessed from is still in history (recorded by the same
`run --update-baseline`, with the same verdicts for every entry), that iteration stands in for it, outputs
and files included.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from .. import jsonio, snapshots
from ..baseline import Baseline, BaselineError, configured_baseline, load_baseline
from ..compare import explain_change
from ..config import Config
from ..errors import WorkbenchError
from ..history import DB_NAME, HistoryError, HistoryStore
from ..model import Result, RowKey, Verdict, results_by_row, row_verdict
from ..snapshots import FileDiff, SnapshotStore

MAX_OUTPUT_DIFF_LINES = 40
_DIFF_MAX_BYTES = 256 * 1024


class CompareError(WorkbenchError):
    """What was asked can't be compared (no such iteration, no history, no baseline)."""


@dataclass(slots=True)
class Side:
    """One run of the comparison: an iteration, or the baseline (standing for `number` when found)."""

    name: str  # "12", "baseline"
    number: int | None
    label: str  # "iteration 12", "baseline (iteration 9)"
    rows: dict[RowKey, list[Result]] = field(default_factory=dict)
    verdicts: dict[RowKey, Verdict] = field(default_factory=dict)
    names: dict[RowKey, str] = field(default_factory=dict)
    outputs: bool = True  # whether its rows' outputs are known (the bare baseline has none)
    started_at: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "iteration": self.number, "label": self.label,
                "started_at": self.started_at.isoformat() if self.started_at else None}


@dataclass(slots=True)
class RowChange:
    """One row in both runs: its verdict in each, its output in each and how it changed."""

    key: RowKey
    name: str
    before: Verdict
    after: Verdict
    output_before: Any = None
    output_after: Any = None
    output_diff: list[str] = field(default_factory=list)  # what differs, line by line ("" when unknown)
    detail_before: str = ""
    detail_after: str = ""

    @property
    def label(self) -> str:
        return f"{self.key.set_file} › {self.name}"

    @property
    def said(self) -> list[str]:
        """What changed, said once: a row failing now by the evaluator's words (they name the same places
        the output diff would), else the output diff."""
        if self.detail_after and self.after is not Verdict.PASS:
            return [self.detail_after]
        return self.output_diff

    def to_json(self) -> dict[str, Any]:
        return {"scope": self.key.scope, "set": self.key.set_file, "row_id": self.key.row_id, "row_name": self.name,
                "before": self.before.value, "after": self.after.value, "output_before": self.output_before,
                "output_after": self.output_after, "output_diff": self.output_diff,
                "detail_before": self.detail_before, "detail_after": self.detail_after}


@dataclass(slots=True)
class Comparison:
    before: Side
    after: Side
    fixed: list[RowChange] = field(default_factory=list)
    newly_failing: list[RowChange] = field(default_factory=list)
    still_failing: list[RowChange] = field(default_factory=list)
    output_changed: list[RowChange] = field(default_factory=list)  # the verdict held, the output did not
    only_before: list[str] = field(default_factory=list)  # row labels in one run only
    only_after: list[str] = field(default_factory=list)
    files: list[FileDiff] | None = None  # None: no snapshot to diff (`files_note` says why)
    files_note: str = ""

    @property
    def flipped(self) -> list[RowChange]:
        return [*self.fixed, *self.newly_failing]

    def to_json(self) -> dict[str, Any]:
        return {"before": self.before.to_json(), "after": self.after.to_json(),
                "fixed": [c.to_json() for c in self.fixed],
                "newly_failing": [c.to_json() for c in self.newly_failing],
                "still_failing": [c.to_json() for c in self.still_failing],
                "output_changed": [c.to_json() for c in self.output_changed],
                "only_before": self.only_before, "only_after": self.only_after,
                "files": None if self.files is None else [d.to_json() for d in self.files],
                "files_note": self.files_note or None}


# -- choosing the two runs -------------------------------------------------------------------------


def _iteration_side(store: HistoryStore, number: int, name: str | None = None) -> Side:
    info = store.iteration(number)
    if info is None:
        raise CompareError(f"there is no iteration {number} in history (see `workbench history`)")
    side = Side(name or str(number), number, f"iteration {number}", started_at=info.started_at)
    _fill(side, store.results(number))
    return side


def _fill(side: Side, results: list[Result]) -> None:
    side.rows = results_by_row(results)
    for key, group in side.rows.items():
        verdict = row_verdict(r.verdict for r in group)
        if verdict is not None:
            side.verdicts[key] = verdict
        side.names[key] = group[0].label


def _baseline_side(config: Config, store: HistoryStore) -> Side:
    try:
        baseline = load_baseline(configured_baseline(config))
    except BaselineError as exc:
        raise CompareError(str(exc)) from None
    if baseline is None:
        raise CompareError(f"there is no baseline at {config.baseline.path} yet: bless one with "
                           "`workbench run --update-baseline`")
    source = _blessed_from(store, baseline)
    if source is not None:
        side = _iteration_side(store, source, "baseline")
        side.label = f"baseline (iteration {source})"
        return side
    side = Side("baseline", None, f"baseline of {baseline.created_at or 'unknown date'}", outputs=False)
    rows: dict[RowKey, list[bool]] = {}
    for entry in baseline.entries.values():
        key = RowKey(entry.scope, entry.set_file, entry.row_id)
        rows.setdefault(key, []).append(entry.passed)
        side.names[key] = entry.row_name or entry.row_id
    side.verdicts = {key: Verdict.PASS if all(passes) else Verdict.FAIL for key, passes in rows.items()}
    return side


def _blessed_from(store: HistoryStore, baseline: Baseline) -> int | None:
    """The iteration the baseline was written from: recorded just before it was, with the same verdicts."""
    try:
        created = datetime.fromisoformat(baseline.created_at)
    except ValueError:
        return None
    for info in reversed(store.iterations(limit=200)):
        if not info.finished_at - timedelta(seconds=2) <= created <= info.finished_at + timedelta(minutes=5):
            continue
        results = {r.key: r.passed for r in store.results(info.number)}
        if all(results.get(key) == entry.passed for key, entry in baseline.entries.items()):
            return info.number
    return None


def _side(config: Config, store: HistoryStore, spec: str) -> Side:
    if spec == "baseline":
        return _baseline_side(config, store)
    text = spec.removeprefix("#")
    if not text.isdigit():
        raise CompareError(f"{spec!r} is not an iteration number or `baseline`")
    return _iteration_side(store, int(text))


def _default_numbers(store: HistoryStore) -> tuple[int, int]:
    infos = store.iterations(limit=2)
    if len(infos) < 2:
        raise CompareError("history holds fewer than two iterations: nothing to compare yet")
    return infos[0].number, infos[1].number


# -- comparing -------------------------------------------------------------------------------------


def compare_runs(config: Config, before: str | None = None, after: str | None = None) -> Comparison:
    """Compare `before` with `after` (iteration numbers or "baseline"). Neither: the iteration before the
    last with the last; only `before`: it with the last."""
    if not (config.state_dir / DB_NAME).is_file():
        raise CompareError(f"no history yet in {config.state_dir}: run `workbench run` or `workbench watch` first")
    try:
        with HistoryStore.open(config) as store:
            return compare_in(config, store, before, after)
    except HistoryError as exc:
        raise CompareError(str(exc)) from None


def compare_in(config: Config, store: HistoryStore, before: str | None, after: str | None) -> Comparison:
    """`compare_runs` on an open store (the TUI's)."""
    if before is None:
        first, last = _default_numbers(store)
        old, new = _iteration_side(store, first), _iteration_side(store, last)
    else:
        latest = store.latest_number()
        if latest is None:
            raise CompareError("history holds no iteration yet")
        old = _side(config, store, before)
        new = _side(config, store, after) if after is not None else _iteration_side(store, latest)
    comparison = compare_sides(old, new)
    _add_files(comparison, store)
    return comparison


def compare_sides(old: Side, new: Side) -> Comparison:
    """The rows' flips and output changes from `old` to `new` (rows in both), in `new`'s file order."""
    comparison = Comparison(old, new)
    for key, after in new.verdicts.items():
        before = old.verdicts.get(key)
        if before is None:
            comparison.only_after.append(new.names.get(key, key.row_id))
            continue
        change = _row_change(key, new.names.get(key, key.row_id), before, after, old, new)
        if before is not Verdict.PASS and after is Verdict.PASS:
            comparison.fixed.append(change)
        elif before is Verdict.PASS and after is not Verdict.PASS:
            comparison.newly_failing.append(change)
        elif after is not Verdict.PASS:
            comparison.still_failing.append(change)
        elif change.output_diff:
            comparison.output_changed.append(change)
    comparison.only_before = [old.names.get(key, key.row_id) for key in old.verdicts if key not in new.verdicts]
    return comparison


def _row_change(key: RowKey, name: str, before: Verdict, after: Verdict, old: Side, new: Side) -> RowChange:
    change = RowChange(key, name, before, after)
    old_rows, new_rows = old.rows.get(key), new.rows.get(key)
    if old_rows:
        change.output_before = old_rows[0].actual
        change.detail_before = _failing_detail(old_rows)
    if new_rows:
        change.output_after = new_rows[0].actual
        change.detail_after = _failing_detail(new_rows)
    if old.outputs and new.outputs and old_rows and new_rows:
        change.output_diff = output_diff(change.output_before, change.output_after)
    return change


def _failing_detail(results: list[Result]) -> str:
    return next((f"{r.evaluator}: {r.detail}" for r in results if not r.passed and r.detail), "")


def output_diff(before: Any, after: Any) -> list[str]:
    """What changed between two outputs, one line each, in workbench's words (`compare.explain_change`: the
    same places the exact-match FAIL names); [] when they are equal."""
    if jsonio.dumps(before, sort_keys=True) == jsonio.dumps(after, sort_keys=True):
        return []
    if before is None or after is None:
        return [f"output: {_short(before)} → {_short(after)}"]
    if len(jsonio.dumps(before)) + len(jsonio.dumps(after)) > _DIFF_MAX_BYTES:
        return ["the outputs differ (too large to diff here)"]
    try:
        lines = explain_change(before, after, MAX_OUTPUT_DIFF_LINES)
    except Exception as exc:  # diffing an odd value must not lose the comparison
        return [f"the outputs differ ({type(exc).__name__} while diffing them)"]
    return lines or ["the outputs differ"]


def _short(value: Any, width: int = 80) -> str:
    text = "nothing" if value is None else jsonio.dumps(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _add_files(comparison: Comparison, store: HistoryStore) -> None:
    old, new = comparison.before.number, comparison.after.number
    if old is None or new is None:
        comparison.files_note = "the baseline keeps no files (its iteration is no longer in history)"
        return
    files = store.files or SnapshotStore(store.path.parent, 0)

    def read(db: Any) -> tuple[list[FileDiff] | None, str]:
        notes = [snapshots.snapshot_notes(db, number) for number in (old, new)]
        missing = [str(number) for number, note in zip((old, new), notes, strict=True) if note is None]
        if missing:
            return None, (f"no files were recorded with iteration {' and '.join(missing)} (recorded before "
                          "workbench kept them, or pruned)")
        diffs = snapshots.file_diffs(files, snapshots.state_at(db, old), snapshots.state_at(db, new))
        left_out = sorted({note for note_list in notes if note_list for note in note_list})
        return diffs, "; ".join(left_out)

    comparison.files, comparison.files_note = store.read_with(read)
