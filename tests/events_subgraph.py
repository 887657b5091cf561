"""A small hand-built Wikidata-style subgraph with what every event type needs.

Modelled like the loaders write the Wikidata sample: bare QIDs, domain labels, relation
facts with P-ids and start/end years. Expected impacted triplets in the tests are computed
by hand from the tables below.
"""

from __future__ import annotations

from knowforge.kg.records import EntityRecord, FactRecord
from knowforge.kg.writer import write_entities, write_facts

E = [  # id, name, label, popularity, aliases
    ("Q30", "United States", "Country", 300, ("USA", "US")),
    ("Q145", "United Kingdom", "Country", 250, ("UK",)),
    ("Q29", "Spain", "Country", 200, ()),
    ("Q61", "Washington, D.C.", "City", 150, ("Washington",)),
    ("Q84", "London", "City", 200, ()),
    ("Q2807", "Madrid", "City", 120, ()),
    ("Q1297", "Chicago", "City", 110, ()),
    ("Q3692", "Riyadh", "City", 60, ()),
    ("Q8652", "Miami", "City", 70, ()),
    ("Q60", "New York City", "City", 200, ("NYC",)),
    ("Q851", "Saudi Arabia", "Country", 90, ()),
    ("Q35525", "White House", "Building", 100, ()),
    ("Q42182", "Buckingham Palace", "Building", 90, ()),
    ("Q169101", "10 Downing Street", "Building", 80, ("Number 10",)),
    ("Q11696", "President of the United States", "Position", 200, ("US President",)),
    ("Q9134365", "Monarch of the United Kingdom", "Position", 80, ()),
    ("Q14211", "Prime Minister of the United Kingdom", "Position", 90, ("British Prime Minister",)),
    ("Q6279", "Joe Biden", "Person", 280, ("Biden",)),
    ("Q76", "Barack Obama", "Person", 300, ("Obama",)),
    ("Q13133", "Michelle Obama", "Person", 150, ()),
    ("Q22686", "Donald Trump", "Person", 290, ("Trump",)),
    ("Q43274", "Charles III", "Person", 200, ("King Charles",)),
    ("Q6294", "Keir Starmer", "Person", 120, ()),
    ("Q11571", "Cristiano Ronaldo", "Person", 300, ("CR7",)),
    ("Q615", "Lionel Messi", "Person", 290, ("Leo Messi",)),
    ("Q99001", "Old Striker", "Person", 5, ()),
    ("Q8682", "Real Madrid CF", "Club", 200, ("Real Madrid",)),
    ("Q9616", "Chelsea F.C.", "Club", 180, ("Chelsea",)),
    ("Q1104", "Al Nassr FC", "Club", 60, ("Al Nassr",)),
    ("Q60977", "Inter Miami CF", "Club", 50, ("Inter Miami",)),
    ("Q324867", "La Liga", "League", 100, ()),
    ("Q9448", "Premier League", "League", 120, ()),
    ("Q1052", "Carlo Ancelotti", "Person", 90, ()),
    ("Q1053", "Enzo Maresca", "Person", 40, ()),
    ("Q95", "Google", "Company", 300, ("Google LLC",)),
    ("Q20800404", "Alphabet Inc.", "Company", 150, ("Alphabet",)),
    ("Q380", "Meta Platforms", "Company", 250, ("Meta",)),
    ("Q312", "Apple Inc.", "Company", 290, ("Apple",)),
    ("Q3503829", "Sundar Pichai", "Person", 120, ()),
    ("Q36215", "Mark Zuckerberg", "Person", 200, ("Zuck",)),
    ("Q265852", "Tim Cook", "Person", 150, ()),
    ("Q15042580", "Priscilla Chan", "Person", 60, ()),
    ("Q49088", "Columbia University", "University", 120, ()),
    # a parliamentary republic: elected head of state, a separate head of government
    ("Q183", "Germany", "Country", 220, ("Federal Republic of Germany",)),
    ("Q64", "Berlin", "City", 180, ()),
    ("Q25223", "Federal President of Germany", "Position", 70, ()),
    ("Q4970706", "Chancellor of Germany", "Position", 80, ("German Chancellor",)),
    ("Q155652", "Bellevue Palace", "Building", 40, ()),
    ("Q76658", "Frank-Walter Steinmeier", "Person", 90, ()),
    ("Q2485", "Joachim Gauck", "Person", 70, ()),
    ("Q61053", "Olaf Scholz", "Person", 110, ()),
]

F = [  # subject, relation, object, start_year, end_year
    ("Q30", "P35", "Q6279", 2021, None), ("Q30", "P35", "Q76", 2009, 2017),
    ("Q30", "P6", "Q6279", 2021, None),
    ("Q30", "P36", "Q61", None, None), ("Q11696", "P263", "Q35525", None, None),
    ("Q30", "P1906", "Q11696", None, None), ("Q30", "P1313", "Q11696", None, None),
    ("Q145", "P35", "Q43274", 2022, None), ("Q145", "P6", "Q6294", 2024, None),
    ("Q145", "P36", "Q84", None, None), ("Q9134365", "P263", "Q42182", None, None),
    ("Q14211", "P263", "Q169101", None, None),
    ("Q145", "P1906", "Q9134365", None, None), ("Q145", "P1313", "Q14211", None, None),
    ("Q61", "P17", "Q30", None, None), ("Q84", "P17", "Q145", None, None),
    ("Q2807", "P17", "Q29", None, None), ("Q1297", "P17", "Q30", None, None),
    ("Q3692", "P17", "Q851", None, None), ("Q8652", "P17", "Q30", None, None),
    ("Q60", "P17", "Q30", None, None),
    ("Q6279", "P27", "Q30", None, None), ("Q6279", "P39", "Q11696", 2021, None),
    ("Q76", "P27", "Q30", None, None), ("Q76", "P39", "Q11696", 2009, 2017),
    ("Q76", "P26", "Q13133", 1992, None), ("Q13133", "P26", "Q76", 1992, None),
    ("Q76", "P551", "Q1297", None, None), ("Q76", "P69", "Q49088", None, None),
    ("Q13133", "P27", "Q30", None, None),
    ("Q22686", "P27", "Q30", None, None), ("Q22686", "P551", "Q8652", None, None),
    ("Q43274", "P27", "Q145", None, None), ("Q43274", "P39", "Q9134365", 2022, None),
    ("Q6294", "P27", "Q145", None, None), ("Q6294", "P39", "Q14211", 2024, None),
    ("Q11571", "P54", "Q1104", 2023, None), ("Q11571", "P54", "Q8682", 2009, 2018),
    ("Q11571", "P551", "Q3692", None, None),
    ("Q615", "P54", "Q60977", 2023, None), ("Q615", "P551", "Q8652", None, None),
    ("Q99001", "P54", "Q9616", 1980, None),
    ("Q8682", "P118", "Q324867", None, None), ("Q8682", "P286", "Q1052", 2021, None),
    ("Q8682", "P159", "Q2807", None, None), ("Q8682", "P17", "Q29", None, None),
    ("Q9616", "P118", "Q9448", None, None), ("Q9616", "P286", "Q1053", 2024, None),
    ("Q9616", "P159", "Q84", None, None), ("Q9616", "P17", "Q145", None, None),
    ("Q1104", "P159", "Q3692", None, None), ("Q1104", "P17", "Q851", None, None),
    ("Q60977", "P159", "Q8652", None, None), ("Q60977", "P17", "Q30", None, None),
    ("Q95", "P169", "Q3503829", 2015, None), ("Q95", "P749", "Q20800404", 2015, None),
    ("Q95", "P17", "Q30", None, None),
    ("Q20800404", "P169", "Q3503829", 2019, None), ("Q20800404", "P17", "Q30", None, None),
    ("Q380", "P169", "Q36215", 2004, None), ("Q380", "P17", "Q30", None, None),
    ("Q312", "P169", "Q265852", 2011, None), ("Q312", "P17", "Q30", None, None),
    ("Q3503829", "P108", "Q95", 2004, None), ("Q36215", "P108", "Q380", 2004, None),
    ("Q265852", "P108", "Q312", 1998, None),
    ("Q36215", "P26", "Q15042580", 2012, None), ("Q15042580", "P26", "Q36215", 2012, None),
    ("Q49088", "P131", "Q60", None, None), ("Q49088", "P17", "Q30", None, None),
    ("Q183", "P35", "Q76658", 2017, None), ("Q183", "P35", "Q2485", 2012, 2017),
    ("Q183", "P6", "Q61053", 2021, None), ("Q183", "P36", "Q64", None, None),
    ("Q183", "P1906", "Q25223", None, None), ("Q183", "P1313", "Q4970706", None, None),
    ("Q25223", "P263", "Q155652", None, None), ("Q64", "P17", "Q183", None, None),
    ("Q76658", "P27", "Q183", None, None), ("Q76658", "P39", "Q25223", 2017, None),
    ("Q2485", "P27", "Q183", None, None), ("Q61053", "P27", "Q183", None, None),
    ("Q61053", "P39", "Q4970706", 2021, None),
]
ATTRS = [("Q11571", "P1618", "7"), ("Q615", "P1618", "10"), ("Q99001", "P570", "1990-05-01")]


def build_subgraph(store) -> None:
    write_entities(store, [EntityRecord(id=i, name=n, labels=(label,), aliases=a, popularity=p,
                                        domain="general", source="wikidata")
                           for i, n, label, p, a in E])
    names = {e[0]: e[1] for e in E}
    facts = [FactRecord(subject_id=s, relation=r, object_id=o, source="wikidata",
                        start=f"{sy}-01-01" if sy else None, start_year=sy, end_year=ey,
                        end=f"{ey}-01-01" if ey else None,
                        subject_name=names[s], object_name=names[o]) for s, r, o, sy, ey in F]
    facts += [FactRecord(subject_id=s, relation=r, value=v, source="wikidata",
                         datatype="time" if r == "P570" else "string") for s, r, v in ATTRS]
    write_facts(store, facts)


def evaluate_editing(store, items, options, *, method: str, backend=None, args=None):
    """One editing solver over an events benchmark's items through the engine (what
    ``knowforge eval --benchmark events:B --solver METHOD`` runs): the run id, its report folder,
    its task metrics and its Run properties."""
    from types import SimpleNamespace

    from knowforge.eval.tasks import run_tasks
    from knowforge.generators.events.method import METHOD
    from knowforge.models.task import Component

    [run] = run_tasks(store, items[0].benchmark, items, METHOD.tasks, options,
                      solver=Component(name=method, args=args or {}), backend=backend, group_key=METHOD.item_group)
    props = store.user_query("MATCH (r:Run {id: $id}) RETURN properties(r) AS p", {"id": run.run_id})[0]["p"]
    metrics = run.metrics
    return SimpleNamespace(run_id=run.run_id, report_dir=run.report_dir, run=props, metrics={
        "reliability": metrics["events/fact"]["edit_reliability"],
        "locality": metrics["events/locality"]["locality"],
        "tendency": metrics["events/tendency"]["tendency_accuracy"],
        "retrieval_top1_accuracy": props.get("retrieval_top1_accuracy"),
        "method": props.get("editing_method")})
