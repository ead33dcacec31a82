"""One iteration: re-read the project, run every selected row's target, score every (row × evaluator).

The engine knows nothing of screens. It reports through events and returns an IterationReport;
the text report, the history store and the TUI are all just subscribers. Cancelling the task that
runs an iteration kills every child it started (the runners clean up in `finally`).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Iterable
from typing import Any

from .cluster import rows_in_flight
from .config import Config
from .dialects import RowRun, dialect_for
from .dialects.base import run_error_of
from .events import (
    EventSink,
    IterationFinished,
    IterationReport,
    IterationStarted,
    ResultReady,
    ReuseDecision,
    RowLog,
    RowStarted,
    Trigger,
)
from .history import last_row_verdicts
from .model import (
    EvaluatorDef,
    Project,
    Result,
    RowKey,
    Sample,
    Verdict,
    sample_rate_met,
    samples_detail,
    wrap_output,
)
from .project import load_project
from .rescoring import (
    IterationReuse,
    KeptState,
    ReusePolicy,
    RowFilter,
    RowPlan,
    ScorePlan,
    plan,
    run_fingerprint,
)
from .runners import RUNNER_FAULTS, Runner, RunOutcome, make_runner, outcome_from_exception
from .runners.reaper import sweep_escaped
from .scoring import CriterionError, Score, ScoreInput, scorer_of

RunnerFactory = Callable[[Config], Runner]


def failing_first(jobs: list[RowPlan], passed_before: dict[RowKey, bool]) -> list[RowPlan]:
    """The order rows start in: those that did not pass last time (and rows never run before) first, then
    the rest, each group in file order. Only the start order: results, reports and the tree keep file order."""
    if not passed_before:
        return jobs
    return sorted(jobs, key=lambda job: (passed_before.get(job.key, False), job.position))


class Engine:
    """Runs iterations for one project. Stateless between iterations: files are re-read every time."""

    def __init__(self, config: Config, runner_factory: RunnerFactory = make_runner) -> None:
        self.config = config
        self.runner_factory = runner_factory
        # The loop (Session) keeps a completed iteration's runner for the next one; `run` doesn't.
        self.keep_runners = False
        # Whether each row passed the last time it ran (the Session keeps it; None: read it from history).
        # Rows that did not pass, and rows never run, start first: the row being fixed comes back first.
        self.last_verdicts: dict[RowKey, bool] | None = None
        self._kept: tuple[KeptState, Runner] | None = None

    async def _take_kept_runner(self, reuse: IterationReuse | None) -> tuple[KeptState | None, Runner | None]:
        """The runner kept from the last iteration when it may serve this one (re-scoring is allowed and
        nothing its processes depend on changed): its worker processes and warm parent stay up. Else closed."""
        kept, self._kept = self._kept, None
        if kept is None:
            return None, None
        state, runner = kept
        if reuse is not None and reuse.may_keep_serving(state):
            return state, runner
        await asyncio.shield(runner.aclose())
        return None, None

    async def aclose(self) -> None:
        """Release a runner kept between iterations."""
        await self._take_kept_runner(None)

    def load(self) -> Project:
        return load_project(self.config.root, self.config)

    async def run_iteration(
        self,
        trigger: Trigger,
        selection: RowFilter | None = None,
        on_event: EventSink | None = None,
        project: Project | None = None,
        reuse: ReusePolicy | None = None,
    ) -> IterationReport:
        """Run every row the filter selects — or, with `reuse`, re-score from its recorded run a row
        whose run is proven unchanged — and record what ran in `reuse.book`. The report's `reuse`
        says for each row which it was, and why."""
        emit = on_event or (lambda _event: None)
        started = time.perf_counter()
        if project is None:
            project = await asyncio.to_thread(self.load)
        selection = (selection or RowFilter()).narrowed(self.config.overrides.tags, self.config.overrides.kinds)
        report = IterationReport(trigger=trigger, problems=list(project.problems), project=project)
        jobs = plan(project, selection)
        in_flight = await rows_in_flight(self.config) if jobs else 1  # on a cluster: connects, or raises
        total_results = sum(len(job.plans) for job in jobs)
        planned = tuple(job.key for job in jobs)
        iteration_reuse = IterationReuse(reuse, self.config, project) if reuse is not None else None
        fingerprints = {key: run_fingerprint(job) for key, job in zip(planned, jobs, strict=True)}
        if iteration_reuse is not None:
            report.reuse = await iteration_reuse.begin([(k, f) for k, f in fingerprints.items() if f is not None])
        emit(IterationStarted(trigger, project, len(jobs), total_results, planned))
        known = self.last_verdicts
        if known is None and jobs:
            known = await asyncio.to_thread(last_row_verdicts, self.config)
        report.results = await self._run_jobs(failing_first(jobs, known or {}), in_flight, fingerprints, emit,
                                              report, iteration_reuse)
        if iteration_reuse is not None:
            reused = {result.row_key for result in report.results if result.reused}
            report.ran_in = iteration_reuse.ran_in(jobs, fingerprints, reused, self.config.gate.row_pass_rate)
        report.duration_s = time.perf_counter() - started
        report.complete = True
        emit(IterationFinished(report))
        return report

    async def _run_jobs(self, jobs: list[RowPlan], in_flight: int, fingerprints: dict[RowKey, str | None],
                        emit: EventSink, report: IterationReport, iteration_reuse: IterationReuse | None,
                        ) -> list[Result]:
        """Run the jobs `in_flight` at a time on the iteration's one runner (the kept one, when it may serve);
        keep that runner for the next iteration when it completes and may be kept, else close it. The
        results in file order (`RowPlan.position`), whatever order the jobs ran in."""
        runners: list[Runner] = []
        kept_state, kept = await self._take_kept_runner(iteration_reuse)
        if kept is not None:
            runners.append(kept)

        def runner_source() -> Runner:
            """The iteration's one runner, started when the first row needs a target (told how many rows it
            will run at most, when it is not kept for the next iteration)."""
            if not runners:
                runner = self.runner_factory(self.config)
                if not self.keep_runners:
                    runner.expect_rows(self.config.runner.repeat * sum(
                        1 for job in jobs if job.row.problem is None and not (
                            (decision := report.reuse.get(job.key)) is not None and decision.reused)))
                runners.append(runner)
            return runners[0]
        done = 0
        collected: list[tuple[int, int, Result]] = []

        async def consume(queue: Iterable[RowPlan]) -> None:
            nonlocal done
            for job in queue:
                results = await self._run_job(job, runner_source, emit, report, iteration_reuse,
                                              fingerprints[job.key])
                done += 1
                for index, result in enumerate(results):
                    collected.append((job.position, index, result))
                    emit(ResultReady(result, done, len(jobs), row_complete=index == len(results) - 1))

        shared = iter(jobs)
        workers = max(1, min(in_flight, len(jobs)))
        completed = False
        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(workers):
                    group.create_task(consume(shared))
            if iteration_reuse is not None:
                kept_state = await iteration_reuse.finish(kept_state)
            completed = True
        finally:
            if completed and self.keep_runners and runners and kept_state is not None:
                self._kept = (kept_state, runners[0])
            else:
                for runner in runners:
                    await asyncio.shield(runner.aclose())
            sweep_escaped()  # what a target moved into a session of its own (double fork, setsid) ends with the run
        collected.sort(key=lambda item: (item[0], item[1]))
        return [result for _, _, result in collected]

    # -- running -----------------------------------------------------------------------------------

    async def _run_job(self, job: RowPlan, runner_source: Callable[[], Runner], emit: EventSink,
                       report: IterationReport, reuse: IterationReuse | None, fingerprint: str | None) -> list[Result]:
        eval_set, row = job.eval_set, job.row
        key: RowKey = job.key
        emit(RowStarted(key, row.name))
        dialect = dialect_for(eval_set.dialect)
        decision: ReuseDecision | None = report.reuse.get(key)
        recorded = None
        if reuse is not None and decision is not None and decision.reused:
            record = reuse.book.records.get(key)
            recorded = reuse.book.outcomes(key, record) if record is not None else None
        reused = recorded is not None
        repeat = self.config.runner.repeat
        if recorded is not None:
            outcomes = recorded  # every recorded sample is re-scored (the record holds as many as `repeat`)
            report.reused_rows += 1
        elif row.problem is not None:
            outcomes = [RunOutcome(error=row.problem)]
        else:
            outcomes = [await self._run_sample(job, key, index, repeat, runner_source, emit)
                        for index in range(repeat)]
            if reuse is not None and fingerprint is not None:
                error = next((why for outcome in outcomes if (why := run_error_of(dialect, outcome)) is not None), None)
                reuse.ran(key, fingerprint, outcomes, error)
        results = []
        for scored in job.plans:
            scores = [await self._score_plan(scored, outcome) for outcome in outcomes]
            results.append(self._result(job, scored, outcomes, scores, reused))
        if len(outcomes) > 1:
            self._judge_samples(results)
        return results

    async def _run_sample(self, job: RowPlan, key: RowKey, index: int, repeat: int,
                          runner_source: Callable[[], Runner], emit: EventSink) -> RunOutcome:
        """One independent run of the row (a conversation: the whole conversation), sample `index` of
        `repeat`: the target sees WORKBENCH_SAMPLE, its log lines say which sample they belong to."""
        prefix = f"[sample {index + 1}/{repeat}] " if repeat > 1 else ""
        run = RowRun(job.eval_set, job.row, self.config, lambda line: emit(RowLog(key, prefix + line)), runner_source,
                     sample=index)
        try:
            return await dialect_for(job.eval_set.dialect).execute(run)
        except RUNNER_FAULTS as exc:
            return outcome_from_exception(exc)

    async def _score_plan(self, plan: ScorePlan, outcome: RunOutcome) -> Score:
        """How `plan`'s evaluator scores one run (the preset ERROR, the run's own error, or its score)."""
        score = plan.preset or (Score.error(outcome.error or "no output") if not outcome.ok else None)
        if score is None:
            assert plan.evaluator is not None and plan.criterion is not None
            score = await self.score(plan.evaluator, plan.criterion, wrap_output(outcome.output), outcome)
        return score

    def _result(self, job: RowPlan, plan: ScorePlan, outcomes: list[RunOutcome], scores: list[Score],
                reused: bool) -> Result:
        """The result of one evaluator over the row's runs: the one run's, or over several the aggregate
        (PASS when `[gate] row_pass_rate` of them pass) standing on its first sample of that verdict."""
        eval_set, row, ref, evaluator = job.eval_set, job.row, plan.ref, plan.evaluator
        samples: list[Sample] = []
        shown, verdict, value, detail = 0, scores[0].verdict, scores[0].score, scores[0].detail
        if len(outcomes) > 1:
            samples = [Sample(index, score.verdict, score.score, score.detail,
                              wrap_output(outcome.output) if outcome.ok else None, outcome.duration_ms, outcome.log,
                              outcome.trace)
                       for index, (outcome, score) in enumerate(zip(outcomes, scores, strict=True))]
            passed = sum(sample.passed for sample in samples)
            if sample_rate_met(passed, len(samples), self.config.gate.row_pass_rate):
                verdict = Verdict.PASS
            else:
                verdict = Verdict.ERROR if all(s.verdict is Verdict.ERROR for s in samples) else Verdict.FAIL
            shown = next((s.index for s in samples if s.verdict is verdict), next(
                (s.index for s in samples if not s.passed), 0))
            value = samples[shown].score
            detail = samples_detail(passed, len(samples), self.config.gate.row_pass_rate, samples[shown])
        outcome, score = outcomes[shown], scores[shown]
        return Result(
            scope=eval_set.scope,
            set_file=eval_set.file_name,
            row_id=row.id,
            row_name=row.name,
            evaluator=ref,
            verdict=verdict,
            score=value,
            detail=detail,
            actual=wrap_output(outcome.output) if outcome.ok else None,
            expected=score.expected if score.expected is not None else row.expected_for(ref),
            duration_ms=outcome.duration_ms,
            evaluator_type=evaluator.type_id if evaluator else None,
            inputs=row.inputs,
            trace=outcome.trace,
            log=outcome.log,
            reused=reused,
            samples=samples,
        )

    def _judge_samples(self, results: list[Result]) -> None:
        """A repeated row passes when `[gate] row_pass_rate` of its runs pass *every* evaluator, not each
        evaluator on runs of its own: when too few do, its results with a failed sample fail too, so that
        `row_passes` (every result passes) holds the row's verdict."""
        count = len(results[0].samples) if results else 0
        if not count or any(len(r.samples) != count for r in results):
            return
        joint = sum(all(r.samples[index].passed for r in results) for index in range(count))
        rate = self.config.gate.row_pass_rate
        if sample_rate_met(joint, count, rate):
            return
        for result in results:
            if result.passed and result.passed_samples < count:
                result.verdict = Verdict.FAIL
                result.detail = (f"{joint}/{count} samples passed every evaluator (row_pass_rate {rate:g}); "
                                 f"this evaluator passed {result.passed_samples}/{count}")

    async def score(self, evaluator: EvaluatorDef, criterion: dict[str, Any], output: Any,
                    outcome: RunOutcome) -> Score:
        """One evaluator's score of one run: whatever the evaluator does with what it is given (a bad
        criterion, values nested too deeply, a bug of its own) is an ERROR score, never an exception, so
        the iteration goes on."""
        scorer = scorer_of(evaluator)
        assert scorer is not None
        data = ScoreInput(evaluator=evaluator, criterion=criterion, output=output, trace=outcome.trace,
                          duration_ms=outcome.duration_ms, config=self.config)
        try:
            score = scorer.score(data)
            if inspect.isawaitable(score):
                score = await score
        except CriterionError as exc:
            return Score.error(str(exc))
        except RecursionError:
            return Score.error("the values are nested too deeply to score")
        except Exception as exc:  # an evaluator bug must not stop the iteration
            return Score.error(f"evaluator {evaluator.type_id} failed: {type(exc).__name__}: {exc}")
        return score


__all__ = ["Engine", "RunnerFactory", "Trigger", "Verdict", "failing_first", "wrap_output"]
