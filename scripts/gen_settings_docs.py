"""Write the JSON Schema of workbench.toml (workbench/settings.schema.json) and the settings table of
docs/settings.md from the settings' declarations (workbench/settings/sections.py and each format's
dialects/<name>/settings.py).

Run after adding or changing a setting:  python scripts/gen_settings_docs.py
With --check, write nothing and exit 1 when either file is stale (tests/settings/test_settings_docs.py does
the same check).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.settings.docs import SCHEMA_FILE, schema_text, with_table  # noqa: E402

SETTINGS_PAGE = ROOT / "docs" / "settings.md"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a file is stale; write nothing")
    check = parser.parse_args(argv).check
    wanted = {SCHEMA_FILE: schema_text(), SETTINGS_PAGE: with_table(SETTINGS_PAGE.read_text(encoding="utf-8"))}
    stale = [path for path, text in wanted.items() if not path.exists() or path.read_text(encoding="utf-8") != text]
    for path in stale:
        if check:
            print(f"{path.relative_to(ROOT)} is stale: run python scripts/gen_settings_docs.py", file=sys.stderr)
        else:
            path.write_text(wanted[path], encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
