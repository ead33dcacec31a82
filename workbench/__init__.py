"""workbench: a terminal test-until-green workbench for evaluation datasets."""

__version__ = "0.1.0"
