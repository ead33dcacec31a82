"""Helpers the tests import (`tests/` is on sys.path through `pythonpath` in pyproject.toml, so
`from helpers.project import make_project` works from every test folder). One module per job:

* `project` — write fixture projects: evaluators, eval sets, `workbench.toml`, targets
* `cli` — run the real `workbench` CLI in a fresh interpreter (or in-process through click's CliRunner)
  and read its `--json` document
* `paths` — where the repository's examples/, tests/fixtures/ and workbench/ are
* `checks` — look from outside: did a folder change (`tree_digest`), is a process still running
* `tui` — a scripted fake target, Pilot waits that fail instead of hanging, reading the screen
* `watch` — drive `Session.watch()` in-process and wait on what it requested and completed
* `writeback` — write-back fixtures in several JSON styles and checks independent of the scanner
* `hardening` — the misbehaving target's configs, pid checks, deep values, "failed politely" asserts
"""
