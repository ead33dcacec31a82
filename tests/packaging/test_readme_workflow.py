"""The GitHub Actions workflow the docs show (docs/reports.md; the README links to it) is complete and true:
it parses as YAML, has the check, the gate, the digest in the job summary, the annotations and the HTML report
kept as an artifact even when the gate fails, and its `workbench` steps, run as GitHub would run them on the
bundled example, do what the page says."""

from __future__ import annotations

import shlex
import shutil

import yaml
from helpers.cli import cli_env, invoke_workbench
from helpers.paths import EXAMPLES, REPO


def _workflow() -> dict:
    text = (REPO / "docs" / "reports.md").read_text()
    section = text[text.index("## Share a run: a Markdown digest"):]
    block = section[section.index("```yaml\n") + len("```yaml\n"):]
    return yaml.safe_load(block[:block.index("```")])


def _steps() -> list[dict]:
    (job,) = _workflow()["jobs"].values()
    return job["steps"]


def test_the_workflow_has_every_part():
    doc = _workflow()
    assert set(doc[True] if True in doc else doc["on"]) == {"push", "pull_request"}  # YAML 1.1 reads `on` as True
    steps = _steps()
    uses = [step.get("uses", "").split("@")[0] for step in steps]
    assert uses[:2] == ["actions/checkout", "actions/setup-python"]
    runs = [step["run"] for step in steps if "run" in step]
    assert runs[0].startswith("python3 -m pip install workbench-evals")
    assert runs[1:] == ["workbench check",
                        'workbench run --html report.html --md "$GITHUB_STEP_SUMMARY" --annotations github']
    upload = steps[-1]
    assert upload["uses"].startswith("actions/upload-artifact@") and upload["if"] == "always()"
    assert upload["with"]["path"] == "report.html"


def test_its_workbench_steps_do_what_the_docs_say(tmp_path):
    """Run on the bundled example as GitHub runs them (the workspace is the project): the check passes, the
    gate fails on the example's one failing row, which is annotated at its line; the summary holds the digest
    and the report is written for the artifact step."""
    project = tmp_path / "workspace"
    shutil.copytree(EXAMPLES / "grading", project, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    summary = tmp_path / "step_summary.md"
    env = cli_env(GITHUB_WORKSPACE=str(project), GITHUB_STEP_SUMMARY=str(summary))
    codes = []
    outputs = []
    for step in _steps()[3:-1]:
        args = [env["GITHUB_STEP_SUMMARY"] if arg == "$GITHUB_STEP_SUMMARY" else arg
                for arg in shlex.split(step["run"])]
        assert args[0] == "workbench"
        result = invoke_workbench(*args[1:], cwd=project, env=env)
        codes.append(result.returncode)
        outputs.append(result.stdout)
    assert codes == [0, 1]  # the check passes; the gate fails: the example fails one row on purpose
    source = (project / "evals/default/eval-sets/grading.json").read_text().splitlines()
    named = next(i for i, line in enumerate(source) if '"score 50 passes (boundary)"' in line)
    opening = max(i for i in range(named) if source[i].strip() == "{") + 1
    assert (f"::error file=evals/default/eval-sets/grading.json,line={opening},title=FAIL grading.json › "
            "score 50 passes (boundary)::") in outputs[1]
    digest = summary.read_text()
    assert digest.startswith("## workbench: ❌ gate failed")
    assert "score 50 passes (boundary)" in digest
    assert (project / "report.html").is_file()
