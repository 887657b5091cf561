"""``knowforge view``: a local, read-only web viewer of runs, samples and the graph behind them.

It sits at the top of the house beside the CLI: it composes the runs the eval engine wrote
and the graph ``kg/`` holds, and draws whatever views the methods declare
(``knowforge.models.view.MethodView``). Every query is a named statement in ``cypher/view/``
run through ``Store.read`` (read transactions only); nothing is written.

* ``runs``     the runs table and a run's page (properties, report tables, plots);
* ``numbers``  a run's accuracy overall, per task and per slice, with 95% intervals;
* ``samples``  a filtered page of a run's samples, and one sample in full;
* ``compare``  runs of one benchmark side by side;
* ``graphs``   the method views: their keys and their drawings;
* ``entities`` one entity with its facts and the questions about it;
* ``app``      the Starlette application (server-rendered Jinja2 pages);
* ``server``   binding 127.0.0.1, choosing a free port, opening a browser;
* ``errors``   the not-found and bad-request errors the pages report.
"""
