"""Scripted replays (seed 001): a case's steps replayed against the project's tools and approval
rules, with no target, no model and no network. `dialects/replays.py` loads the cases; this package
reads them (`script`), the tools (`tools`, `schema`), replays them (`executor`, `live`) and turns a
recorded run into a case (`from_run`)."""
