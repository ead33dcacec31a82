"""The command palette's workbench commands (ctrl+p): the rare actions that have no key of their own,
and a few with one. Each is (title, help, the main screen's action it runs; `app.` names the app's)."""

from __future__ import annotations

PALETTE: list[tuple[str, str, str]] = [
    ("run: re-run everything", "Run every row now (R)", "rerun_all"),
    ("run: re-run failing rows", "Run only the rows that fail or error now", "rerun_failures"),
    ("view: failures only", "Toggle showing failing rows only (f)", "toggle_failures"),
    ("view: expand all sets", "Expand every eval set", "expand_all"),
    ("view: collapse all sets", "Collapse every eval set", "collapse_all"),
    ("view: history", "Show the iteration history (2)", "show_tab('history')"),
    ("view: evaluators", "Show the evaluators (3)", "show_tab('evaluators')"),
    ("copy: expected output", "Copy the selected row's expected output", "copy_expected"),
    ("write: case from run", "The selected row's run in the history's highlighted iteration as a scripted "
     "case (c)", "case_from_run"),
    ("watch: pause or resume", "Pause or resume watching files (w)", "app.toggle_watch"),
]
