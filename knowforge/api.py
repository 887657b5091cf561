"""The public API for method authors: everything a benchmark method needs, from one module.

A method from another package imports from here only (``from knowforge.api import Method,
EvalUnit, ...``); the modules behind these names may move between releases, this module's
names do not. tests/plugins/kf_birthyear is a method written against it
(docs/tutorial.md builds one step by step).

A method is two values and one entry point::

    # my_method/method.py: its graph side
    METHOD = Method(name="birthyear", title=..., description=..., params=BirthYearParams,
                    generate=generate, items=items, tasks=(Task(...),),
                    evaluation="my_method.evaluation:UNIT",     # lazy: loaded on first evaluation
                    cypher="my_method.cypher",                  # its named statements: "birthyear/<file>"
                    labels=("BirthYearQuestion",), relationship_types=("ASKS_ABOUT",),
                    views=(MethodView(...),))
    # my_method/evaluation.py: its evaluation side
    UNIT = EvalUnit(solvers=(SolverSpec(...),), metrics=(MetricSpec(..., scale="years"),),
                    scorers=(ScorerSpec(...),))

    # pyproject.toml
    [project.entry-points."knowforge.methods"]
    birthyear = "my_method.method:METHOD"

The names, grouped:

* the method and its graph side: ``Method``, ``MethodParams``, ``GenerationSummary``,
  ``ExportFormat``, ``Progress``, ``Task``, ``Component``, ``ItemFilter``, ``BenchmarkItem``,
  ``MethodView``, ``Mark``, ``ViewTable``, ``ViewParam``;
* the graph: ``write_benchmark``, ``write_questions``, ``read_items``, ``source_graph_hash``
  (the store a method receives runs its own named statements: ``store.read("<method>/<name>",
  **params)`` and ``store.write("<method>/<name>", rows)``), ``validate_label``;
* the evaluation side: ``EvalUnit``, ``SolverSpec``, ``SolveContext``, ``SolverOutput``,
  ``SolverDetail`` (what ``SolverOutput.details`` holds: ``Remappable`` records, which follow a
  resample's ``UnitCopy`` list), ``NoArgs``, ``MetricSpec``, ``MetricInput``, ``Totals``,
  ``ScorerSpec``, ``Score``,
  ``SampleResult``, ``RunExportSpec``, ``RunExport``, ``RecordedRun``, ``FileScoringSpec``,
  ``RunViewSpec``, ``ValiditySpec``, ``ValidityContext``, ``ValiditySection``;
* the control model's practice of the method's prompts: ``ControlPractice`` (declared as
  ``Method(control_practice=...)``), ``PracticeData`` (the trained facts it renders from),
  ``Example``, ``ExampleBuilder``, ``qa_prompt`` (the engine's question form), ``EOS``;
* helpers a solver or metric composes: ``solve_prompted`` (the engine's prompted ask-and-score
  step), ``accuracy``, ``run_answers`` (a recorded run's answers);
* the records: ``Scoring``, ``RunRecord``, ``Report``.

A name a method's unit declares (a solver, a metric, a scorer, ...) that knowforge or another
installed method declares too is namespaced by its owner: ``birthyear``'s ``accuracy`` is
``birthyear:accuracy`` (``knowforge methods`` says so). Every plug-in name also answers to that
qualified form, so a task naming ``"birthyear:year_error"`` means the method's own whatever
else is installed.
"""

from __future__ import annotations

from knowforge.eval.metrics import accuracy
from knowforge.eval.records import Report, RunRecord
from knowforge.eval.results import run_answers
from knowforge.eval.solvers import solve_prompted
from knowforge.eval.types import SampleResult, Score, Scoring
from knowforge.eval.unit import (EvalUnit, FileScoringSpec, MetricInput, MetricSpec, NoArgs, RecordedRun, Remappable,
                                 RunExport, RunExportSpec, RunViewSpec, ScorerSpec, SolveContext, SolverDetail,
                                 SolverOutput, SolverSpec, Totals, UnitCopy, ValidityContext, ValiditySection,
                                 ValiditySpec)
from knowforge.kg.cypher import validate_label
from knowforge.models.control_data import EOS, ControlPractice, Example, ExampleBuilder, PracticeData, qa_prompt
from knowforge.models.method import ExportFormat, GenerationSummary, Method, MethodParams, Progress
from knowforge.models.questions import read_items, source_graph_hash, write_benchmark, write_questions
from knowforge.models.task import Component, ItemFilter, Task
from knowforge.models.types import BenchmarkItem
from knowforge.models.view import Mark, MethodView, ViewParam, ViewTable

__all__ = [
    # the method and its graph side
    "BenchmarkItem", "Component", "ExportFormat", "GenerationSummary", "ItemFilter", "Mark", "Method",
    "MethodParams", "MethodView", "Progress", "Task", "ViewParam", "ViewTable",
    # the graph
    "read_items", "source_graph_hash", "validate_label", "write_benchmark", "write_questions",
    # the evaluation side
    "EvalUnit", "FileScoringSpec", "MetricInput", "MetricSpec", "NoArgs", "RecordedRun", "Remappable", "RunExport",
    "RunExportSpec", "RunViewSpec", "SampleResult", "Score", "ScorerSpec", "SolveContext", "SolverDetail",
    "SolverOutput", "SolverSpec", "Totals", "UnitCopy", "ValidityContext", "ValiditySection", "ValiditySpec",
    # the control model's practice
    "ControlPractice", "EOS", "Example", "ExampleBuilder", "PracticeData", "qa_prompt",
    # helpers
    "accuracy", "run_answers", "solve_prompted",
    # the records
    "Report", "RunRecord", "Scoring",
]
