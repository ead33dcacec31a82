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
    ("history: compare with the iteration before", "The highlighted iteration (the newest until you pick one in "
     "the history tab) against the one before it: the code diff, then the rows it flipped (d)", "compare"),
    ("view: project folder", "Show the project's full path and the files to edit again (p)", "show_project"),
    ("copy: expected output", "Copy the selected row's expected output", "copy_expected"),
    ("write: case from run", "The selected row's run in the history's highlighted iteration as a scripted "
     "case (c)", "case_from_run"),
    ("watch: pause or resume", "Pause or resume watching files (w)", "app.toggle_watch"),
]
