"""A UiPath coded agent project's names that its settings and its `Dialect` share (plain constants, importing
nothing, so naming the format needs no settings machinery)."""

SECTION = "uipath-coded"  # its section of workbench.toml, and the format's name
PROJECT_FILE = "uipath.json"
EVALUATIONS_DIR = "evaluations"
DEFAULT_ENTRY = "main"

__all__ = ["DEFAULT_ENTRY", "EVALUATIONS_DIR", "PROJECT_FILE", "SECTION"]
