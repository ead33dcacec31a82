"""`--junit FILE`: JUnit XML, one testcase per result, for CI systems that show test reports; redacted
(`redact.py`), as every report meant to leave the terminal is."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from ..events import IterationReport
from ..model import Result, Verdict
from .output_file import write_output_file
from .redact import Redactor

# Characters XML 1.0 cannot carry at all (terminal escapes among them) are written as visible escapes.
# XML 1.0 allows C1 controls (U+007F-U+009F), but a terminal or CI log viewer would act on them: they go too.
_NOT_XML = re.compile("[^\x09\x0a\x0d\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256 else
                        f"\\u{ord(m.group()):04x}", text)


def _marks(result: Result) -> str:
    """` (3/5 flaky)` after a repeated or flaky result's name: CI report viewers show names, not properties."""
    marks = [result.samples_text] if result.samples else []
    if result.flaky:
        marks.append("flaky")
    return f" ({' '.join(marks)})" if marks else ""


def junit_xml(report: IterationReport, redactor: Redactor | None = None) -> bytes:
    """The XML; `redactor`: the project's secrets (`redact.redactor_for`), to which the outputs' are added."""
    known = (redactor or Redactor()).knowing(report.results)

    def _safe(text: str) -> str:
        return _xml_text(known.text(text))

    root = ET.Element("testsuites", name="workbench")
    suites: dict[str, ET.Element] = {}
    counts: dict[str, dict[str, int]] = {}
    milliseconds: dict[str, float] = {}
    for result in report.results:
        suite_name = result.set_key.shown(with_scope=True)
        if suite_name not in suites:
            suites[suite_name] = ET.SubElement(root, "testsuite", name=_safe(suite_name))
            counts[suite_name] = {"tests": 0, "failures": 0, "errors": 0}
            milliseconds[suite_name] = 0.0
        case = ET.SubElement(
            suites[suite_name], "testcase",
            classname=_safe(suite_name),
            name=_safe(f"{result.label} [{result.evaluator}]{_marks(result)}"),
            time=f"{result.duration_ms / 1000:.3f}",
        )
        count = counts[suite_name]
        count["tests"] += 1
        milliseconds[suite_name] += result.duration_ms
        if result.verdict is Verdict.FAIL:
            count["failures"] += 1
            failure = ET.SubElement(case, "failure", message=_safe(result.detail.splitlines()[0]
                                                                        if result.detail else "FAIL"))
            failure.text = _safe(result.detail)
        elif result.verdict is Verdict.ERROR:
            count["errors"] += 1
            error = ET.SubElement(case, "error", message=_safe(result.detail.splitlines()[0]
                                                                    if result.detail else "ERROR"))
            error.text = _safe(result.detail)
    problems = report.error_problems
    if problems:
        suite = ET.SubElement(root, "testsuite", name="workbench.problems")
        counts["workbench.problems"] = {"tests": len(problems), "failures": 0, "errors": len(problems)}
        suites["workbench.problems"] = suite
        for problem in problems:
            case = ET.SubElement(suite, "testcase", classname="workbench.problems", name=_safe(problem.file))
            ET.SubElement(case, "error", message=_safe(problem.message)).text = _safe(problem.message)
    for name, suite in suites.items():
        count = counts[name]
        suite.set("tests", str(count["tests"]))
        suite.set("failures", str(count["failures"]))
        suite.set("errors", str(count["errors"]))
        suite.set("time", f"{milliseconds.get(name, 0) / 1000:.3f}")
    summary = report.summary
    root.set("tests", str(summary.total + len(problems)))
    root.set("failures", str(summary.failed))
    root.set("errors", str(summary.errors + len(problems)))
    root.set("time", f"{report.duration_s:.3f}")
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def write_junit(report: IterationReport, path: Path, redactor: Redactor | None = None) -> None:
    """The JUnit XML to `path`, whole or not at all; a link or FIFO there is refused (`output_file.py`).
    OutputFileError when it can't be written."""
    write_output_file(path, junit_xml(report, redactor), "the JUnit XML")
