"""Make the picture of the HTML report (README.md, docs/reports.md): screenshots/report.png (light) and report-dark.png.

    python scripts/make_report_screenshot.py

A copy of the bundled grading example is run four times (the bug, its fix, a regression, the regression
half fixed) so the trend and the flips have something to show, then `workbench report --html` writes the
page and headless Chromium (`chromium --headless --screenshot`, as the tests drive it) takes the picture,
the first failing row open. Needs Debian's chromium (`apt-get install -y chromium`; .ci/run installs it).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "screenshots"
SIZE = "1360,980"
STEPS = [  # (what the target's band() says, why): each run is one iteration
    (None, "the example as shipped: 50 fails"),
    (("if score > 50:", "if score >= 50:"), "the fix"),
    (("if score >= 70:", "if score >= 75:"), "a regression: merit moved to 75"),
    (("if score >= 85:", "if score >= 90:"), "and distinction to 90"),
]
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
TIMEOUT_S = 120


def workbench(*args: str, cwd: Path) -> None:
    env = dict(os.environ, NO_COLOR="1", WORKBENCH_NO_PROGRESS="1")
    subprocess.run([sys.executable, "-m", "workbench", *args], cwd=cwd, env=env, check=False, timeout=TIMEOUT_S,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def make_report(work: Path) -> Path:
    project = work / "grading"
    shutil.copytree(ROOT / "examples" / "grading", project, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    grade = project / "grade.py"
    for change, _why in STEPS:
        if change is not None:
            grade.write_text(grade.read_text(encoding="utf-8").replace(*change), encoding="utf-8")
        workbench("run", str(project), cwd=work)
    page = work / "report.html"
    workbench("report", str(project), "--html", str(page), cwd=work)
    if not page.is_file():
        raise SystemExit("workbench report --html wrote nothing")
    return page


def screenshot(browser: str, page: Path, png: Path, scratch: Path, *, dark: bool) -> None:
    argv = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
            f"--user-data-dir={scratch}", f"--window-size={SIZE}", f"--screenshot={png}",
            *(["--force-dark-mode", "--blink-settings=preferredColorScheme=0"] if dark else []),
            page.resolve().as_uri()]
    env = dict(os.environ, HOME=str(scratch))
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        process.wait(timeout=TIMEOUT_S)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    if not png.is_file():
        raise SystemExit(f"{browser} made no screenshot")


def main() -> None:
    browser = next((found for name in BROWSERS if (found := shutil.which(name))), None)
    if browser is None:
        raise SystemExit("no chromium on PATH: apt-get install -y chromium")
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="workbench-report-shot-") as temp:
        work = Path(temp)
        page = make_report(work)
        screenshot(browser, page, OUT / "report.png", work / "profile", dark=False)
        screenshot(browser, page, OUT / "report-dark.png", work / "profile-dark", dark=True)
    print(f"wrote {OUT / 'report.png'} and {OUT / 'report-dark.png'}")


if __name__ == "__main__":
    main()
