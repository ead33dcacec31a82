"""`workbench compare` as it is printed (text and `--json`): its rows' names, details and outputs and its files'
diffs redacted (`redact.py`: the project's secrets, and what either run's outputs hold under secret-named keys).
An output diff is made again from the redacted outputs, so a secret is never clipped before it is recognised;
which rows count as changed is still decided on the outputs themselves."""

from __future__ import annotations

from dataclasses import replace

from ..actions.compare import Comparison, RowChange, output_diff
from ..snapshots import FileDiff
from .redact import Redactor

CHANGED_IN_SECRETS = "the outputs differ in redacted values only"


def redact_comparison(comparison: Comparison, redactor: Redactor) -> Comparison:
    """A copy of `comparison` with nothing of `redactor`'s (or of its runs' output secrets) left in it."""
    results = [r for side in (comparison.before, comparison.after) for group in side.rows.values() for r in group]
    known = redactor.knowing(results)

    def rows(changes: list[RowChange]) -> list[RowChange]:
        return [_row(change, known) for change in changes]

    return replace(comparison, fixed=rows(comparison.fixed), newly_failing=rows(comparison.newly_failing),
                   still_failing=rows(comparison.still_failing), output_changed=rows(comparison.output_changed),
                   only_before=[known.text(name) for name in comparison.only_before],
                   only_after=[known.text(name) for name in comparison.only_after],
                   files=None if comparison.files is None else [_file(diff, known) for diff in comparison.files],
                   files_note=known.text(comparison.files_note))


def _row(change: RowChange, known: Redactor) -> RowChange:
    before, after = known.scrub(change.output_before), known.scrub(change.output_after)
    diff = change.output_diff
    if diff:
        diff = [known.text(line) for line in output_diff(before, after)] or [CHANGED_IN_SECRETS]
    return replace(change, name=known.text(change.name), output_before=before, output_after=after, output_diff=diff,
                   detail_before=known.text(change.detail_before), detail_after=known.text(change.detail_after))


def _file(diff: FileDiff, known: Redactor) -> FileDiff:
    return replace(diff, path=known.text(diff.path), diff=known.text(diff.diff), note=known.text(diff.note))
