"""The use cases, once: the CI gate run, the pre-run checks, accept, add-row and stopping on a signal.

The click commands (`workbench.cli`) and the TUI (`workbench.tui`) both call these and only render
what comes back. Nothing here prints, exits or imports a front-end: a refusal is a `WorkbenchError`
whose message says what to do, and every result is a plain object.
"""
