"""Which project files look like they hold secrets: the one list, for the snapshots `compare` diffs.

A file matching `SECRET_FILES` (gitignore-style patterns, matched by `pathspec` against its path relative to
the project root, at any depth unless the pattern has a `/`), or one of `[history] secret_files`, is
noted by its digest when it changes — so `compare` can say "secrets.json changed (contents not kept)" —
and its contents are never written under `.workbench/`. It is fingerprinted like any other file, so
a change to it still re-runs the rows it may change. A file that is `.gitignore`d is left out of
snapshots altogether, secret-looking or not.
"""

from __future__ import annotations

from collections.abc import Iterable

import pathspec

SECRET_FILES: tuple[str, ...] = (
    # environment files and workbench's own settings with keys
    ".env*", ".appilotsrc",
    # secrets and credentials by name
    "secrets.*", "*secrets*", "*secret*.json", "*secret*.yaml", "*secret*.yml", "*secret*.toml",
    "credentials*", "*credentials*.json", "service-account*.json", "token.json",
    # keys and certificates
    "*.pem", "*.key", "*.p12", "*.pfx", "*.keystore", "*.jks",
    "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
    # tools' credential files
    ".netrc", "_netrc", ".npmrc", ".pypirc", ".pgpass", ".git-credentials", ".htpasswd", ".dockercfg",
)
"""Secret-looking files: their changes are noted, their contents never kept. `[history] secret_files` adds
more (a `!pattern` there takes a file back)."""


class PatternError(ValueError):
    """A pattern that is not gitignore-style; the message names it."""


def _spec(patterns: Iterable[str]) -> pathspec.PathSpec:
    try:
        return pathspec.GitIgnoreSpec.from_lines(list(patterns))
    except (ValueError, TypeError) as exc:
        raise PatternError(f"not a gitignore-style pattern: {exc}") from None


def check_patterns(patterns: Iterable[str]) -> None:
    """PatternError when one of `patterns` can't be read as a gitignore-style pattern."""
    _spec(patterns)


class SecretFiles:
    """The secret-looking files of one project: `SECRET_FILES` and the project's own patterns."""

    def __init__(self, extra: Iterable[str] = ()) -> None:
        self._spec = _spec([*SECRET_FILES, *extra])

    def __contains__(self, rel: object) -> bool:
        """Does the file at `rel` (posix, relative to the project root) look like a secret?"""
        return isinstance(rel, str) and self._spec.match_file(rel)


__all__ = ["SECRET_FILES", "PatternError", "SecretFiles", "check_patterns"]
