"""Write ``wikidata/entities.json``: a small Wikidata sample in the ``latest-all.json`` layout.

The facts below are hand-written from public knowledge (heads of state and government,
football careers and coaches, company CEOs and parents, 2010-2023 mostly). Entity documents
follow the Wikidata JSON dump shape exactly, so the loader reads this file and a real dump
the same way.

Identifiers: an entity whose Wikidata QID the authors know is written with that QID
(``REAL_QIDS``). Every other entity gets an id in the range Q990000000-Q999999999, far above
any QID Wikidata has issued, derived from a hash of its label so it stays stable when
the tables change. See ``docs/samples.md``.

Sitelinks: the number of sitelinks of an entity is ``ceil(popularity * SITELINK_SCALE)``,
where ``popularity`` approximates the entity's real sitelink count; the scale keeps the file
small while the ordering of entities by sitelink count (the loader's popularity signal)
stays realistic.

Run ``python -m knowforge.kg.samples.build_wikidata_sample`` (or this file) to rewrite the
output; it is deterministic (same tables, byte-identical file).
"""
from __future__ import annotations

import hashlib
import json
import math
import uuid
from pathlib import Path

OUT = Path(__file__).resolve().parent / "wikidata" / "entities.json"
SITELINK_SCALE = 0.04
GREGORIAN = "http://www.wikidata.org/entity/Q1985727"
STATEMENT_NS = uuid.UUID("6f1c3c36-5d0f-4a53-9c0e-2a8a1c2b7e11")

# --------------------------------------------------------------------------- identifiers
REAL_QIDS = {
    # classes and values
    "human": "Q5", "country": "Q6256", "sovereign state": "Q3624078", "city": "Q515",
    "capital city": "Q5119", "position": "Q4164871", "association football club": "Q476028",
    "professional sports league": "Q15991290", "business": "Q4830453",
    "public company": "Q891723", "male": "Q6581097", "female": "Q6581072",
    "university": "Q3918", "currency": "Q8142", "language": "Q34770",
    "organization": "Q43229", "international organization": "Q484652",
    "politician": "Q82955", "association football player": "Q937857",
    "association football manager": "Q628099", "businessperson": "Q43845",
    "philosopher": "Q4964182", "engineer": "Q81096", "lawyer": "Q40348",
    "economist": "Q188094", "monarch": "Q116", "computer scientist": "Q82594",
    "palace": "Q16560", "building": "Q41176", "information technology": "Q11661",
    "artificial intelligence": "Q11660", "kilogram": "Q11570",
    # countries
    "United States of America": "Q30", "United Kingdom": "Q145", "France": "Q142",
    "Germany": "Q183", "Italy": "Q38", "Spain": "Q29", "Japan": "Q17", "Canada": "Q16",
    "Australia": "Q408", "India": "Q668", "Brazil": "Q155", "Russia": "Q159",
    "People's Republic of China": "Q148", "Mexico": "Q96", "Argentina": "Q414",
    "Portugal": "Q45", "Netherlands": "Q55", "South Korea": "Q884", "Turkey": "Q43",
    "New Zealand": "Q664", "Saudi Arabia": "Q851", "Poland": "Q36", "Sweden": "Q34",
    "Norway": "Q20", "Croatia": "Q224", "Belgium": "Q31", "Switzerland": "Q39",
    "Austria": "Q40", "Chile": "Q298", "Monaco": "Q235", "Greece": "Q41",
    # cities
    "Washington, D.C.": "Q61", "London": "Q84", "Paris": "Q90", "Berlin": "Q64",
    "Rome": "Q220", "Madrid": "Q2807", "Tokyo": "Q1490", "Ottawa": "Q1930",
    "Canberra": "Q3114", "New Delhi": "Q987", "Brasília": "Q2844", "Moscow": "Q649",
    "Beijing": "Q956", "Mexico City": "Q1489", "Buenos Aires": "Q1486", "Lisbon": "Q597",
    "Amsterdam": "Q727", "Seoul": "Q8684", "Ankara": "Q3640", "Wellington": "Q23661",
    "New York City": "Q60", "Los Angeles": "Q65", "San Francisco": "Q62", "Seattle": "Q5083",
    "Austin": "Q16559", "Manchester": "Q18125", "Liverpool": "Q24826", "Barcelona": "Q1492",
    "Munich": "Q1726", "Turin": "Q495", "Milan": "Q490", "Dortmund": "Q1295",
    "Riyadh": "Q3692", "Warsaw": "Q270", "Saint Petersburg": "Q656", "Athens": "Q1524",
    "Lille": "Q648",
    # international organisations
    "European Union": "Q458", "NATO": "Q7184", "United Nations": "Q1065",
    "International Monetary Fund": "Q7804", "World Health Organization": "Q7817",
    "NASA": "Q23548",
    # positions and buildings
    "President of the United States": "Q11696", "Vice President of the United States": "Q11699",
    "Prime Minister of the United Kingdom": "Q14211", "White House": "Q35525",
    # leagues and clubs
    "Premier League": "Q9448", "La Liga": "Q324867", "Serie A": "Q15804",
    "Bundesliga": "Q82595", "Ligue 1": "Q13394",
    "Real Madrid CF": "Q8682", "FC Barcelona": "Q7156", "Manchester United F.C.": "Q18656",
    "Juventus FC": "Q1422", "Paris Saint-Germain F.C.": "Q483020", "FC Bayern Munich": "Q15789",
    "Chelsea F.C.": "Q9616", "Liverpool F.C.": "Q1130849", "Arsenal F.C.": "Q9617",
    "Manchester City F.C.": "Q50602", "Borussia Dortmund": "Q41420",
    "Atlético Madrid": "Q8701", "Tottenham Hotspur F.C.": "Q18741", "AC Milan": "Q1543",
    "Inter Milan": "Q631", "AS Monaco FC": "Q180305", "Lille OSC": "Q19516",
    # universities
    "Harvard University": "Q13371", "Columbia University": "Q49088",
    "Stanford University": "Q41506", "University of Oxford": "Q34433",
    "Princeton University": "Q21578", "University of Pennsylvania": "Q49117",
    "Duke University": "Q168751", "University of Chicago": "Q131252",
    # companies
    "Microsoft": "Q2283", "Apple Inc.": "Q312", "Amazon": "Q3884", "Google": "Q95",
    "Alphabet Inc.": "Q20800404", "Meta Platforms": "Q380", "IBM": "Q37156", "Intel": "Q248",
    "The Walt Disney Company": "Q7414", "LinkedIn": "Q213660", "GitHub": "Q364",
    "YouTube": "Q866", "Instagram": "Q209330", "Tesla, Inc.": "Q478214", "Nvidia": "Q182477",
    "SpaceX": "Q193701",
    # people
    "Barack Obama": "Q76", "Donald Trump": "Q22686", "Joe Biden": "Q6279",
    "Michelle Obama": "Q13133", "Kamala Harris": "Q10853588", "Hillary Clinton": "Q6294",
    "Elizabeth II": "Q9682", "Charles III": "Q43274", "David Cameron": "Q192",
    "Theresa May": "Q264766", "Boris Johnson": "Q180589", "Emmanuel Macron": "Q3052772",
    "Angela Merkel": "Q567", "Olaf Scholz": "Q61053", "Vladimir Putin": "Q7747",
    "Xi Jinping": "Q15031", "Narendra Modi": "Q1058", "Justin Trudeau": "Q3099714",
    "Cristiano Ronaldo": "Q11571", "Lionel Messi": "Q615", "Bill Gates": "Q5284",
    "Steve Jobs": "Q19837", "Tim Cook": "Q265852", "Jeff Bezos": "Q312556",
    "Larry Page": "Q4934", "Sergey Brin": "Q92764", "Mark Zuckerberg": "Q36215",
    "Elon Musk": "Q317521", "Satya Nadella": "Q7426870", "Walt Disney": "Q8704",
    "Socrates": "Q913", "Plato": "Q859", "Aristotle": "Q868",
}


def qid(name: str) -> str:
    """The entity id of ``name``: its real QID, or a stable id above every issued QID."""
    if name in REAL_QIDS:
        return REAL_QIDS[name]
    digest = int(hashlib.sha1(name.encode("utf-8")).hexdigest(), 16)
    return f"Q99{digest % 10**7:07d}"


# --------------------------------------------------------------------------- snak builders
def time_value(text: str) -> dict:
    """'2014-02-04' (day), '2014-02' (month), '2014' (year), '-0469' (BCE year)."""
    sign = "-" if text.startswith("-") else "+"
    parts = text.lstrip("-+").split("-")
    year = int(parts[0])
    month = int(parts[1]) if len(parts) > 1 else 0
    day = int(parts[2]) if len(parts) > 2 else 0
    precision = 11 if day else (10 if month else 9)
    return {"time": f"{sign}{year:04d}-{month:02d}-{day:02d}T00:00:00Z", "timezone": 0,
            "before": 0, "after": 0, "precision": precision, "calendarmodel": GREGORIAN}


def snak(prop: str, kind: str, value) -> dict:
    if kind == "item":
        target = qid(value)
        datavalue = {"value": {"entity-type": "item", "numeric-id": int(target[1:]), "id": target},
                     "type": "wikibase-entityid"}
        datatype = "wikibase-item"
    elif kind == "time":
        datavalue, datatype = {"value": time_value(value), "type": "time"}, "time"
    elif kind == "quantity":
        amount, unit = value
        unit_uri = "1" if unit is None else f"http://www.wikidata.org/entity/{qid(unit)}"
        sign = "-" if str(amount).startswith("-") else "+"
        datavalue = {"value": {"amount": f"{sign}{str(amount).lstrip('-+')}", "unit": unit_uri},
                     "type": "quantity"}
        datatype = "quantity"
    elif kind == "string":
        datavalue, datatype = {"value": value, "type": "string"}, "string"
    elif kind == "mono":
        datavalue = {"value": {"text": value, "language": "en"}, "type": "monolingualtext"}
        datatype = "monolingualtext"
    else:
        raise ValueError(kind)
    return {"snaktype": "value", "property": prop, "datatype": datatype, "datavalue": datavalue}


# --------------------------------------------------------------------------- entity store
ENTITIES: dict[str, dict] = {}
REFERENCED: dict[str, str] = {}


def entity(name: str, description: str, popularity: int, p31=(), aliases=()) -> str:
    key = qid(name)
    if key in ENTITIES:
        if ENTITIES[key]["label"] != name:
            raise ValueError(f"id collision: {name} / {ENTITIES[key]['label']}")
        return key
    ENTITIES[key] = {"label": name, "description": description, "popularity": popularity,
                     "aliases": list(aliases), "claims": {}}
    for cls in p31:
        claim(name, "P31", cls)
    return key


def claim(subject: str, prop: str, value, kind: str = "item", start=None, end=None, pit=None,
          rank: str = "normal", number: str | None = None) -> None:
    doc = ENTITIES[qid(subject)]
    statements = doc["claims"].setdefault(prop, [])
    if kind == "item":
        REFERENCED[qid(value)] = value
        for existing in statements:  # one statement per (value, start): office tables overlap
            same_value = existing["mainsnak"]["datavalue"]["value"].get("id") == qid(value)
            same_start = (existing.get("qualifiers", {}).get("P580", [{}])[0]
                          .get("datavalue", {}).get("value", {}).get("time")
                          == (time_value(start)["time"] if start else None))
            if same_value and same_start:
                return
    statement = {"mainsnak": snak(prop, kind, value), "type": "statement",
                 "id": f"{qid(subject)}${str(uuid.uuid5(STATEMENT_NS, f'{subject}|{prop}|{len(statements)}')).upper()}",
                 "rank": rank}
    qualifiers: dict[str, list] = {}
    for qprop, qtext in (("P580", start), ("P582", end), ("P585", pit)):
        if qtext:
            qualifiers[qprop] = [snak(qprop, "time", qtext)]
    if number:
        qualifiers["P1618"] = [snak("P1618", "string", number)]
    if qualifiers:
        statement["qualifiers"] = qualifiers
        statement["qualifiers-order"] = list(qualifiers)
    statements.append(statement)


def person(name, description, popularity, sex, born, citizenship=(), occupations=(),
           died=None, birthplace=None, aliases=()):
    entity(name, description, popularity, ["human"], aliases)
    claim(name, "P21", sex)
    claim(name, "P569", born, "time")
    if died:
        claim(name, "P570", died, "time")
    for country in citizenship:
        claim(name, "P27", country)
    for occupation in occupations:
        claim(name, "P106", occupation)
    if birthplace:
        claim(name, "P19", birthplace)


def spells(subject, prop, rows, inverse=None, inverse_on_object=False):
    """rows: (object, start, end[, number]). ``inverse`` adds the mirrored statement."""
    for row in rows:
        obj, start, end = row[:3]
        number = row[3] if len(row) > 3 else None
        claim(subject, prop, obj, start=start, end=end, number=number)
        if inverse:
            claim(obj, inverse, subject, start=start, end=end)


# =========================================================================== classes
CLASSES = [
    ("human", "common name of Homo sapiens, unique extant species of the genus Homo", 240),
    ("country", "distinct territorial body or political entity", 220),
    ("sovereign state", "state that has the highest authority over a territory", 180),
    ("city", "large human settlement", 230), ("capital city", "primary city of a country", 170),
    ("position", "situation of a person within an organization or polity", 60),
    ("association football club", "sports club that plays association football", 90),
    ("professional sports league", "group of sports teams that compete against each other", 40),
    ("business", "organization undertaking commercial activity", 150),
    ("public company", "company whose shares are traded on a stock exchange", 90),
    ("male", "to be used in \"sex or gender\" (P21) to indicate that the human subject is a male", 60),
    ("female", "to be used in \"sex or gender\" (P21) to indicate that the human subject is a female", 60),
    ("university", "institution of higher education", 200), ("currency", "generally accepted medium of exchange", 190),
    ("language", "particular system of communication", 200),
    ("organization", "social entity established to meet needs or pursue goals", 120),
    ("international organization", "organization with international membership or scope", 100),
    ("politician", "person involved in politics", 180),
    ("association football player", "person who plays association football", 120),
    ("association football manager", "person who manages a football team", 70),
    ("businessperson", "person involved in the business sector", 110),
    ("philosopher", "person with an extensive knowledge of philosophy", 200),
    ("engineer", "professional practitioner of engineering", 180),
    ("lawyer", "legal professional who helps clients and represents them in a court of law", 170),
    ("economist", "professional in the social science discipline of economics", 150),
    ("monarch", "person at the head of a monarchy", 150),
    ("computer scientist", "scientist specialising in computer science", 110),
    ("palace", "grand residence", 150), ("building", "structure, typically with a roof and walls", 170),
    ("information technology", "use of computers to process data", 190),
    ("artificial intelligence", "intelligence demonstrated by machines", 180),
    ("kilogram", "SI unit of mass", 170),
    ("official residence", "residence of a head of state, head of government or other senior figure", 30),
    ("industry", "sector of the economy", 80), ("software industry", "businesses that develop software", 50),
    ("e-commerce", "buying and selling of goods or services over the internet", 90),
    ("semiconductor industry", "industry designing and manufacturing semiconductor devices", 40),
    ("mass media", "technologies intended to reach a large audience", 150),
    ("automotive industry", "industry that makes motor vehicles", 90),
    ("petroleum industry", "industry of oil exploration, extraction, refining and marketing", 70),
    ("social media", "virtual communities for sharing information", 140),
    ("aerospace industry", "industry that builds aircraft and spacecraft", 50),
]
INDUSTRIES = {"information technology", "artificial intelligence", "software industry", "e-commerce",
              "semiconductor industry", "mass media", "automotive industry", "petroleum industry",
              "social media", "aerospace industry"}
for _name, _desc, _pop in CLASSES:
    entity(_name, _desc, _pop)
    if _name in INDUSTRIES and _name not in {"information technology", "artificial intelligence"}:
        claim(_name, "P31", "industry")

# =========================================================================== currencies, languages
CURRENCIES = [
    ("United States dollar", 200), ("pound sterling", 160), ("euro", 210), ("Japanese yen", 150),
    ("Canadian dollar", 110), ("Australian dollar", 110), ("Indian rupee", 120),
    ("Brazilian real", 100), ("Russian ruble", 120), ("renminbi", 130), ("Mexican peso", 100),
    ("Argentine peso", 90), ("South Korean won", 100), ("Turkish lira", 100),
    ("New Zealand dollar", 90), ("Saudi riyal", 80),
]
REAL_QIDS.update({"United States dollar": "Q4917", "pound sterling": "Q25224", "euro": "Q4916",
                  "Japanese yen": "Q8146", "Canadian dollar": "Q1104069",
                  "Australian dollar": "Q259502", "Indian rupee": "Q80524",
                  "Brazilian real": "Q173117", "Russian ruble": "Q41044", "renminbi": "Q39099",
                  "Mexican peso": "Q4730", "Argentine peso": "Q199578",
                  "South Korean won": "Q202040", "Turkish lira": "Q172872",
                  "New Zealand dollar": "Q1472704"})
for _name, _pop in CURRENCIES:
    entity(_name, "currency", _pop, ["currency"])

LANGUAGES = [
    ("English", "Q1860", 300), ("French", "Q150", 280), ("German", "Q188", 280),
    ("Italian", "Q652", 260), ("Spanish", "Q1321", 290), ("Japanese", "Q5287", 260),
    ("Hindi", "Q1568", 230), ("Portuguese", "Q5146", 260), ("Russian", "Q7737", 280),
    ("Standard Chinese", "Q727694", 120), ("Korean", "Q9176", 240), ("Turkish", "Q256", 240),
    ("Dutch", "Q7411", 250), ("Arabic", "Q13955", 290),
]
for _name, _q, _pop in LANGUAGES:
    REAL_QIDS[_name] = _q
    entity(_name, "language", _pop, ["language"])

# =========================================================================== countries
# name, description, popularity, capital, currency, languages, populations
# (date, amount, preferred), memberships (org, start, end)
COUNTRIES = [
    ("United States of America", "country primarily located in North America", 330,
     "Washington, D.C.", "United States dollar", ["English"],
     [("2010-04-01", 308745538, False), ("2020-04-01", 331449281, True)],
     [("United Nations", "1945-10-24", None), ("NATO", "1949-08-24", None)], ["USA", "US", "United States", "America"]),
    ("United Kingdom", "country in north-west Europe", 320, "London", "pound sterling", ["English"],
     [("2011-03-27", 63182178, False), ("2021-03-21", 67026292, True)],
     [("United Nations", "1945-10-24", None), ("NATO", "1949-08-24", None),
      ("European Union", "1973-01-01", "2020-01-31")], ["UK", "Britain", "Great Britain"]),
    ("France", "country in Western Europe", 320, "Paris", "euro", ["French"],
     [("2012-01-01", 65241241, False), ("2023-01-01", 68042591, True)],
     [("United Nations", "1945-10-24", None), ("NATO", "1949-08-24", None),
      ("European Union", "1958-01-01", None)], ["French Republic"]),
    ("Germany", "country in Central Europe", 320, "Berlin", "euro", ["German"],
     [("2011-05-09", 80219695, False), ("2022-12-31", 84358845, True)],
     [("United Nations", "1973-09-18", None), ("NATO", "1955-05-06", None),
      ("European Union", "1958-01-01", None)], ["Federal Republic of Germany", "Deutschland"]),
    ("Italy", "country in southern Europe", 310, "Rome", "euro", ["Italian"],
     [("2011-10-09", 59433744, False), ("2023-01-01", 58850717, True)],
     [("United Nations", "1955-12-14", None), ("NATO", "1949-08-24", None),
      ("European Union", "1958-01-01", None)], ["Italian Republic"]),
    ("Spain", "country in southwestern Europe", 310, "Madrid", "euro", ["Spanish"],
     [("2011-11-01", 46815916, False), ("2022-01-01", 47615034, True)],
     [("United Nations", "1955-12-14", None), ("NATO", "1982-05-30", None),
      ("European Union", "1986-01-01", None)], ["Kingdom of Spain"]),
    ("Japan", "island country in East Asia", 310, "Tokyo", "Japanese yen", ["Japanese"],
     [("2010-10-01", 128057352, False), ("2020-10-01", 126146099, True)],
     [("United Nations", "1956-12-18", None)], ["Nippon"]),
    ("Canada", "country in North America", 310, "Ottawa", "Canadian dollar", ["English", "French"],
     [("2011-05-10", 33476688, False), ("2021-05-11", 36991981, True)],
     [("United Nations", "1945-11-09", None), ("NATO", "1949-08-24", None)], []),
    ("Australia", "country in Oceania", 300, "Canberra", "Australian dollar", ["English"],
     [("2011-08-09", 21507717, False), ("2021-08-10", 25422788, True)],
     [("United Nations", "1945-11-01", None)], ["Commonwealth of Australia"]),
    ("India", "country in South Asia", 310, "New Delhi", "Indian rupee", ["Hindi", "English"],
     [("2001-03-01", 1028737436, False), ("2011-03-01", 1210854977, True)],
     [("United Nations", "1945-10-30", None)], ["Republic of India", "Bharat"]),
    ("Brazil", "country in South America", 300, "Brasília", "Brazilian real", ["Portuguese"],
     [("2010-08-01", 190755799, False), ("2022-08-01", 203062512, True)],
     [("United Nations", "1945-10-24", None)], ["Federative Republic of Brazil"]),
    ("Russia", "country in Eastern Europe and Northern Asia", 310, "Moscow", "Russian ruble", ["Russian"],
     [("2010-10-14", 142856536, False), ("2021-10-01", 147182123, True)],
     [("United Nations", "1991-12-24", None), ("Group of Eight", "1997-06-20", "2014-03-24")],
     ["Russian Federation"]),
    ("People's Republic of China", "country in East Asia", 300, "Beijing", "renminbi", ["Standard Chinese"],
     [("2010-11-01", 1339724852, False), ("2020-11-01", 1411778724, True)],
     [("United Nations", "1971-10-25", None)], ["China", "PRC"]),
    ("Mexico", "country in North America", 300, "Mexico City", "Mexican peso", ["Spanish"],
     [("2010-06-12", 112336538, False), ("2020-03-15", 126014024, True)],
     [("United Nations", "1945-11-07", None)], ["United Mexican States"]),
    ("Argentina", "country in South America", 290, "Buenos Aires", "Argentine peso", ["Spanish"],
     [("2010-10-27", 40117096, False), ("2022-05-18", 46044703, True)],
     [("United Nations", "1945-09-24", None)], ["Argentine Republic"]),
    ("Portugal", "country in southwestern Europe", 290, "Lisbon", "euro", ["Portuguese"],
     [("2011-03-21", 10562178, False), ("2021-04-19", 10343066, True)],
     [("United Nations", "1955-12-14", None), ("NATO", "1949-08-24", None),
      ("European Union", "1986-01-01", None)], ["Portuguese Republic"]),
    ("Netherlands", "country in western Europe", 290, "Amsterdam", "euro", ["Dutch"],
     [("2010-01-01", 16574989, False), ("2023-01-01", 17811291, True)],
     [("United Nations", "1945-12-10", None), ("NATO", "1949-08-24", None),
      ("European Union", "1958-01-01", None)], ["Holland"]),
    ("South Korea", "country in East Asia", 290, "Seoul", "South Korean won", ["Korean"],
     [("2010-11-01", 48580293, False), ("2020-11-01", 51829136, True)],
     [("United Nations", "1991-09-17", None)], ["Republic of Korea", "Korea"]),
    ("Turkey", "country straddling Western Asia and Southeast Europe", 300, "Ankara", "Turkish lira", ["Turkish"],
     [("2010-12-31", 73722988, False), ("2022-12-31", 85279553, True)],
     [("United Nations", "1945-10-24", None), ("NATO", "1952-02-18", None)], ["Türkiye", "Republic of Türkiye"]),
    ("New Zealand", "island country in the southwestern Pacific Ocean", 290, "Wellington",
     "New Zealand dollar", ["English"],
     [("2013-03-05", 4242048, False), ("2018-03-06", 4699755, True)],
     [("United Nations", "1945-10-24", None)], ["Aotearoa"]),
]
MINOR_COUNTRIES = [("Saudi Arabia", 280), ("Poland", 300), ("Sweden", 300), ("Norway", 300),
                   ("Croatia", 290), ("Belgium", 300), ("Switzerland", 300), ("Austria", 300),
                   ("Chile", 290), ("Monaco", 270), ("Greece", 300)]

for org, desc, pop in [("United Nations", "intergovernmental organization", 300),
                       ("NATO", "intergovernmental military alliance", 230),
                       ("European Union", "political and economic union of European states", 280),
                       ("Group of Eight", "former intergovernmental political forum (1997-2014)", 90),
                       ("International Monetary Fund", "international financial institution", 190),
                       ("World Health Organization", "specialized agency of the United Nations", 220),
                       ("European Central Bank", "central bank of the euro area", 140),
                       ("NASA", "space agency of the United States", 230)]:
    entity(org, desc, pop, ["organization", "international organization"] if org not in {"NASA"} else ["organization"])

for (_name, _desc, _pop, _capital, _cur, _langs, _pops, _members, _aliases) in COUNTRIES:
    entity(_name, _desc, _pop, ["country", "sovereign state"], _aliases)
for _name, _pop in MINOR_COUNTRIES:
    entity(_name, "sovereign state", _pop, ["sovereign state"])

CAPITAL_POP = {"Washington, D.C.": 250, "London": 300, "Paris": 300, "Berlin": 290, "Rome": 290,
               "Madrid": 280, "Tokyo": 290, "Ottawa": 230, "Canberra": 200, "New Delhi": 220,
               "Brasília": 220, "Moscow": 290, "Beijing": 280, "Mexico City": 250,
               "Buenos Aires": 250, "Lisbon": 260, "Amsterdam": 260, "Seoul": 250, "Ankara": 240,
               "Wellington": 200}
for (_name, _desc, _pop, _capital, _cur, _langs, _pops, _members, _aliases) in COUNTRIES:
    entity(_capital, f"capital city of {_name}", CAPITAL_POP[_capital], ["city", "capital city"])
    claim(_capital, "P17", _name)
    claim(_name, "P36", _capital)
    claim(_name, "P38", _cur)
    for _lang in _langs:
        claim(_name, "P37", _lang)
    for _date, _amount, _preferred in _pops:
        claim(_name, "P1082", (_amount, None), "quantity", pit=_date,
              rank="preferred" if _preferred else "normal")
    for _org, _start, _end in _members:
        claim(_name, "P463", _org, start=_start, end=_end)
claim("Rome", "P571", "-0753-04-21", "time")  # traditional founding date, BCE, day precision

OTHER_CITIES = [
    # name, country, popularity, description
    ("New York City", "United States of America", 290, "most populous city in the United States"),
    ("Los Angeles", "United States of America", 260, "city in California, United States"),
    ("San Francisco", "United States of America", 240, "city in California, United States"),
    ("Seattle", "United States of America", 200, "city in Washington, United States"),
    ("Austin", "United States of America", 170, "capital city of Texas, United States"),
    ("Redmond", "United States of America", 60, "city in King County, Washington, United States"),
    ("Cupertino", "United States of America", 80, "city in Santa Clara County, California, United States"),
    ("Mountain View", "United States of America", 70, "city in Santa Clara County, California, United States"),
    ("Menlo Park", "United States of America", 50, "city in San Mateo County, California, United States"),
    ("Armonk", "United States of America", 30, "hamlet in Westchester County, New York, United States"),
    ("Santa Clara", "United States of America", 60, "city in Santa Clara County, California, United States"),
    ("Burbank", "United States of America", 60, "city in Los Angeles County, California, United States"),
    ("Sunnyvale", "United States of America", 60, "city in Santa Clara County, California, United States"),
    ("San Bruno", "United States of America", 30, "city in San Mateo County, California, United States"),
    ("Palo Alto", "United States of America", 80, "city in Santa Clara County, California, United States"),
    ("Irving", "United States of America", 50, "city in Dallas County, Texas, United States"),
    ("Hawthorne", "United States of America", 40, "city in Los Angeles County, California, United States"),
    ("Carson", "United States of America", 40, "city in Los Angeles County, California, United States"),
    ("Fort Lauderdale", "United States of America", 90, "city in Florida, United States"),
    ("Honolulu", "United States of America", 150, "capital city of Hawaii, United States"),
    ("Manchester", "United Kingdom", 230, "city in Greater Manchester, England"),
    ("Liverpool", "United Kingdom", 200, "city in Merseyside, England"),
    ("Cardiff", "United Kingdom", 190, "capital city of Wales"),
    ("Barcelona", "Spain", 260, "city in Catalonia, Spain"),
    ("Munich", "Germany", 250, "capital city of Bavaria, Germany"),
    ("Dortmund", "Germany", 150, "city in North Rhine-Westphalia, Germany"),
    ("Hamburg", "Germany", 230, "city-state in northern Germany"),
    ("Turin", "Italy", 200, "city in Piedmont, Italy"),
    ("Milan", "Italy", 240, "city in Lombardy, Italy"),
    ("Lyon", "France", 200, "city in Auvergne-Rhône-Alpes, France"),
    ("Lille", "France", 150, "city in Hauts-de-France, France"),
    ("Amiens", "France", 120, "city in Somme, France"),
    ("Fontvieille", "Monaco", 40, "ward of Monaco"),
    ("Riyadh", "Saudi Arabia", 200, "capital city of Saudi Arabia"),
    ("Jeddah", "Saudi Arabia", 140, "city in Makkah Province, Saudi Arabia"),
    ("Funchal", "Portugal", 110, "capital city of Madeira, Portugal"),
    ("Rosario", "Argentina", 100, "city in Santa Fe Province, Argentina"),
    ("Santos", "Brazil", 90, "city in São Paulo state, Brazil"),
    ("Poznań", "Poland", 120, "city in Greater Poland, Poland"),
    ("Warsaw", "Poland", 270, "capital city of Poland"),
    ("Malmö", "Sweden", 130, "city in Skåne, Sweden"),
    ("Saint Petersburg", "Russia", 250, "federal city in Russia"),
    ("Athens", "Greece", 260, "capital city of Greece"),
    ("Stagira", "Greece", 40, "ancient Greek city in Chalcidice"),
]
for _name, _country, _pop, _desc in OTHER_CITIES:
    entity(_name, _desc, _pop, ["city"])
    claim(_name, "P17", _country)
claim("Athens", "P571", "-1400", "time")  # Mycenaean-era settlement; year precision BCE

# =========================================================================== offices
# office name, country, role ('hos' | 'hog' | 'both'), residences, holders (person, start, end)
OFFICES = [
    ("President of the United States", "United States of America", "both",
     [("White House", None, None)],
     [("Barack Obama", "2009-01-20", "2017-01-20"), ("Donald Trump", "2017-01-20", "2021-01-20"),
      ("Joe Biden", "2021-01-20", "2025-01-20"), ("Donald Trump", "2025-01-20", None)]),
    ("monarch of the United Kingdom", "United Kingdom", "hos", [("Buckingham Palace", None, None)],
     [("Elizabeth II", "1952-02-06", "2022-09-08"), ("Charles III", "2022-09-08", None)]),
    ("Prime Minister of the United Kingdom", "United Kingdom", "hog", [("10 Downing Street", None, None)],
     [("Gordon Brown", "2007-06-27", "2010-05-11"), ("David Cameron", "2010-05-11", "2016-07-13"),
      ("Theresa May", "2016-07-13", "2019-07-24"), ("Boris Johnson", "2019-07-24", "2022-09-06"),
      ("Liz Truss", "2022-09-06", "2022-10-25"), ("Rishi Sunak", "2022-10-25", "2024-07-05"),
      ("Keir Starmer", "2024-07-05", None)]),
    ("President of the French Republic", "France", "hos", [("Élysée Palace", None, None)],
     [("Nicolas Sarkozy", "2007-05-16", "2012-05-15"), ("François Hollande", "2012-05-15", "2017-05-14"),
      ("Emmanuel Macron", "2017-05-14", None)]),
    ("Prime Minister of France", "France", "hog", [("Hôtel Matignon", None, None)],
     [("François Fillon", "2007-05-17", "2012-05-15"), ("Jean-Marc Ayrault", "2012-05-15", "2014-03-31"),
      ("Manuel Valls", "2014-03-31", "2016-12-06"), ("Bernard Cazeneuve", "2016-12-06", "2017-05-15"),
      ("Édouard Philippe", "2017-05-15", "2020-07-03"), ("Jean Castex", "2020-07-03", "2022-05-16"),
      ("Élisabeth Borne", "2022-05-16", "2024-01-09")]),
    ("Federal President of Germany", "Germany", "hos", [("Bellevue Palace", None, None)],
     [("Horst Köhler", "2004-07-01", "2010-05-31"), ("Christian Wulff", "2010-06-30", "2012-02-17"),
      ("Joachim Gauck", "2012-03-18", "2017-03-18"), ("Frank-Walter Steinmeier", "2017-03-19", None)]),
    ("Chancellor of Germany", "Germany", "hog", [("Federal Chancellery", None, None)],
     [("Angela Merkel", "2005-11-22", "2021-12-08"), ("Olaf Scholz", "2021-12-08", "2025-05-06")]),
    ("President of Italy", "Italy", "hos", [("Quirinal Palace", None, None)],
     [("Giorgio Napolitano", "2006-05-15", "2015-01-14"), ("Sergio Mattarella", "2015-02-03", None)]),
    ("Prime Minister of Italy", "Italy", "hog", [("Palazzo Chigi", None, None)],
     [("Silvio Berlusconi", "2008-05-08", "2011-11-16"), ("Mario Monti", "2011-11-16", "2013-04-28"),
      ("Enrico Letta", "2013-04-28", "2014-02-22"), ("Matteo Renzi", "2014-02-22", "2016-12-12"),
      ("Paolo Gentiloni", "2016-12-12", "2018-06-01"), ("Giuseppe Conte", "2018-06-01", "2021-02-13"),
      ("Mario Draghi", "2021-02-13", "2022-10-22"), ("Giorgia Meloni", "2022-10-22", None)]),
    ("monarch of Spain", "Spain", "hos", [("Palace of Zarzuela", None, None)],
     [("Juan Carlos I", "1975-11-22", "2014-06-19"), ("Felipe VI", "2014-06-19", None)]),
    ("Prime Minister of Spain", "Spain", "hog", [("Moncloa Palace", None, None)],
     [("José Luis Rodríguez Zapatero", "2004-04-17", "2011-12-21"), ("Mariano Rajoy", "2011-12-21", "2018-06-02"),
      ("Pedro Sánchez", "2018-06-02", None)]),
    ("Emperor of Japan", "Japan", "hos", [("Tokyo Imperial Palace", None, None)],
     [("Akihito", "1989-01-07", "2019-04-30"), ("Naruhito", "2019-05-01", None)]),
    ("Prime Minister of Japan", "Japan", "hog", [("Sōri Kantei", None, None)],
     [("Yukio Hatoyama", "2009-09-16", "2010-06-08"), ("Naoto Kan", "2010-06-08", "2011-09-02"),
      ("Yoshihiko Noda", "2011-09-02", "2012-12-26"), ("Shinzo Abe", "2012-12-26", "2020-09-16"),
      ("Yoshihide Suga", "2020-09-16", "2021-10-04"), ("Fumio Kishida", "2021-10-04", "2024-10-01")]),
    ("monarch of Canada", "Canada", "hos", [],
     [("Elizabeth II", "1952-02-06", "2022-09-08"), ("Charles III", "2022-09-08", None)]),
    ("Prime Minister of Canada", "Canada", "hog", [("24 Sussex Drive", None, None)],
     [("Stephen Harper", "2006-02-06", "2015-11-04"), ("Justin Trudeau", "2015-11-04", "2025-03-14")]),
    ("monarch of Australia", "Australia", "hos", [],
     [("Elizabeth II", "1952-02-06", "2022-09-08"), ("Charles III", "2022-09-08", None)]),
    ("Prime Minister of Australia", "Australia", "hog", [("The Lodge", None, None)],
     [("Kevin Rudd", "2007-12-03", "2010-06-24"), ("Julia Gillard", "2010-06-24", "2013-06-27"),
      ("Kevin Rudd", "2013-06-27", "2013-09-18"), ("Tony Abbott", "2013-09-18", "2015-09-15"),
      ("Malcolm Turnbull", "2015-09-15", "2018-08-24"), ("Scott Morrison", "2018-08-24", "2022-05-23"),
      ("Anthony Albanese", "2022-05-23", None)]),
    ("President of India", "India", "hos", [("Rashtrapati Bhavan", None, None)],
     [("Pratibha Patil", "2007-07-25", "2012-07-25"), ("Pranab Mukherjee", "2012-07-25", "2017-07-25"),
      ("Ram Nath Kovind", "2017-07-25", "2022-07-25"), ("Droupadi Murmu", "2022-07-25", None)]),
    ("Prime Minister of India", "India", "hog", [("7 Lok Kalyan Marg", None, None)],
     [("Manmohan Singh", "2004-05-22", "2014-05-26"), ("Narendra Modi", "2014-05-26", None)]),
    ("President of Brazil", "Brazil", "both", [("Palácio da Alvorada", None, None)],
     [("Luiz Inácio Lula da Silva", "2003-01-01", "2011-01-01"), ("Dilma Rousseff", "2011-01-01", "2016-08-31"),
      ("Michel Temer", "2016-08-31", "2019-01-01"), ("Jair Bolsonaro", "2019-01-01", "2023-01-01"),
      ("Luiz Inácio Lula da Silva", "2023-01-01", None)]),
    ("President of Russia", "Russia", "hos", [("Moscow Kremlin", None, None)],
     [("Vladimir Putin", "2000-05-07", "2008-05-07"), ("Dmitry Medvedev", "2008-05-07", "2012-05-07"),
      ("Vladimir Putin", "2012-05-07", None)]),
    ("Prime Minister of Russia", "Russia", "hog", [],
     [("Vladimir Putin", "2008-05-08", "2012-05-07"), ("Dmitry Medvedev", "2012-05-08", "2020-01-16"),
      ("Mikhail Mishustin", "2020-01-16", None)]),
    ("President of the People's Republic of China", "People's Republic of China", "hos", [("Zhongnanhai", None, None)],
     [("Hu Jintao", "2003-03-15", "2013-03-14"), ("Xi Jinping", "2013-03-14", None)]),
    ("Premier of the People's Republic of China", "People's Republic of China", "hog", [],
     [("Wen Jiabao", "2003-03-16", "2013-03-15"), ("Li Keqiang", "2013-03-15", "2023-03-11"),
      ("Li Qiang", "2023-03-11", None)]),
    ("President of Mexico", "Mexico", "both",
     [("Los Pinos", None, "2018-12-01"), ("National Palace (Mexico)", "2018-12-01", None)],
     [("Felipe Calderón", "2006-12-01", "2012-11-30"), ("Enrique Peña Nieto", "2012-12-01", "2018-11-30"),
      ("Andrés Manuel López Obrador", "2018-12-01", "2024-09-30"), ("Claudia Sheinbaum", "2024-10-01", None)]),
    ("President of Argentina", "Argentina", "both", [("Quinta de Olivos", None, None)],
     [("Cristina Fernández de Kirchner", "2007-12-10", "2015-12-10"), ("Mauricio Macri", "2015-12-10", "2019-12-10"),
      ("Alberto Fernández", "2019-12-10", "2023-12-10"), ("Javier Milei", "2023-12-10", None)]),
    ("President of Portugal", "Portugal", "hos", [("Belém Palace", None, None)],
     [("Aníbal Cavaco Silva", "2006-03-09", "2016-03-09"), ("Marcelo Rebelo de Sousa", "2016-03-09", None)]),
    ("Prime Minister of Portugal", "Portugal", "hog", [("São Bento Mansion", None, None)],
     [("José Sócrates", "2005-03-12", "2011-06-21"), ("Pedro Passos Coelho", "2011-06-21", "2015-11-26"),
      ("António Costa", "2015-11-26", "2024-04-02"), ("Luís Montenegro", "2024-04-02", None)]),
    ("monarch of the Netherlands", "Netherlands", "hos", [("Huis ten Bosch", None, None)],
     [("Beatrix of the Netherlands", "1980-04-30", "2013-04-30"), ("Willem-Alexander of the Netherlands", "2013-04-30", None)]),
    ("Prime Minister of the Netherlands", "Netherlands", "hog", [("Catshuis", None, None)],
     [("Jan Peter Balkenende", "2002-07-22", "2010-10-14"), ("Mark Rutte", "2010-10-14", "2024-07-02"),
      ("Dick Schoof", "2024-07-02", None)]),
    ("President of South Korea", "South Korea", "hos",
     [("Blue House", None, "2022-05-10"), ("Yongsan Presidential Office", "2022-05-10", None)],
     [("Lee Myung-bak", "2008-02-25", "2013-02-24"), ("Park Geun-hye", "2013-02-25", "2017-03-10"),
      ("Moon Jae-in", "2017-05-10", "2022-05-09"), ("Yoon Suk Yeol", "2022-05-10", "2025-04-04")]),
    ("President of Turkey", "Turkey", "hos",
     [("Çankaya Mansion", None, "2014-10-29"), ("Presidential Complex (Ankara)", "2014-10-29", None)],
     [("Abdullah Gül", "2007-08-28", "2014-08-28"), ("Recep Tayyip Erdoğan", "2014-08-28", None)]),
    ("Prime Minister of Turkey", "Turkey", "hog", [],
     [("Recep Tayyip Erdoğan", "2003-03-14", "2014-08-28"), ("Ahmet Davutoğlu", "2014-08-28", "2016-05-24"),
      ("Binali Yıldırım", "2016-05-24", "2018-07-09")]),
    ("monarch of New Zealand", "New Zealand", "hos", [],
     [("Elizabeth II", "1952-02-06", "2022-09-08"), ("Charles III", "2022-09-08", None)]),
    ("Prime Minister of New Zealand", "New Zealand", "hog", [("Premier House", None, None)],
     [("John Key", "2008-11-19", "2016-12-12"), ("Bill English", "2016-12-12", "2017-10-26"),
      ("Jacinda Ardern", "2017-10-26", "2023-01-25"), ("Chris Hipkins", "2023-01-25", "2023-11-27"),
      ("Christopher Luxon", "2023-11-27", None)]),
    # offices that are neither head of state nor head of government
    ("Vice President of the United States", "United States of America", None, [("Number One Observatory Circle", None, None)],
     [("Joe Biden", "2009-01-20", "2017-01-20"), ("Mike Pence", "2017-01-20", "2021-01-20"),
      ("Kamala Harris", "2021-01-20", "2025-01-20")]),
    ("United States Secretary of State", "United States of America", None, [],
     [("Hillary Clinton", "2009-01-21", "2013-02-01"), ("John Kerry", "2013-02-01", "2017-01-20"),
      ("Rex Tillerson", "2017-02-01", "2018-03-31"), ("Mike Pompeo", "2018-04-26", "2021-01-20"),
      ("Antony Blinken", "2021-01-26", "2025-01-20")]),
    ("Mayor of London", "United Kingdom", None, [("City Hall, London", None, None)],
     [("Boris Johnson", "2008-05-04", "2016-05-09"), ("Sadiq Khan", "2016-05-09", None)]),
]
# Turkey: the presidential system of 9 July 2018 made the president head of government.
EXTRA_HEAD_OF_GOVERNMENT = [("Turkey", "President of Turkey", "Recep Tayyip Erdoğan", "2018-07-09", None)]

OFFICE_ROLE_END = {"Prime Minister of Turkey": "2018-07-09"}  # office abolished by the 2017 referendum
RESIDENCE_CITY = {"White House": "Washington, D.C.", "Buckingham Palace": "London",
                  "10 Downing Street": "London", "Élysée Palace": "Paris", "Hôtel Matignon": "Paris",
                  "Bellevue Palace": "Berlin", "Federal Chancellery": "Berlin", "Quirinal Palace": "Rome",
                  "Palazzo Chigi": "Rome", "Palace of Zarzuela": "Madrid", "Moncloa Palace": "Madrid",
                  "Tokyo Imperial Palace": "Tokyo", "Sōri Kantei": "Tokyo", "24 Sussex Drive": "Ottawa",
                  "The Lodge": "Canberra", "Rashtrapati Bhavan": "New Delhi", "7 Lok Kalyan Marg": "New Delhi",
                  "Palácio da Alvorada": "Brasília", "Moscow Kremlin": "Moscow", "Zhongnanhai": "Beijing",
                  "Los Pinos": "Mexico City", "National Palace (Mexico)": "Mexico City",
                  "Quinta de Olivos": "Buenos Aires", "Belém Palace": "Lisbon", "São Bento Mansion": "Lisbon",
                  "Huis ten Bosch": "Amsterdam", "Catshuis": "Amsterdam", "Blue House": "Seoul",
                  "Yongsan Presidential Office": "Seoul", "Çankaya Mansion": "Ankara",
                  "Presidential Complex (Ankara)": "Ankara", "Premier House": "Wellington",
                  "Number One Observatory Circle": "Washington, D.C.", "City Hall, London": "London"}
RESIDENCE_POP = {"White House": 170, "Buckingham Palace": 110, "10 Downing Street": 90, "Élysée Palace": 80,
                 "Moscow Kremlin": 120, "Tokyo Imperial Palace": 60}
PALACES = {"Buckingham Palace", "Élysée Palace", "Bellevue Palace", "Quirinal Palace", "Palazzo Chigi",
           "Palace of Zarzuela", "Moncloa Palace", "Tokyo Imperial Palace", "Rashtrapati Bhavan",
           "Palácio da Alvorada", "National Palace (Mexico)", "Belém Palace", "São Bento Mansion",
           "Huis ten Bosch"}
OFFICE_POP = {"President of the United States": 200, "Prime Minister of the United Kingdom": 150,
              "President of the French Republic": 120, "Chancellor of Germany": 110,
              "President of Russia": 110, "Prime Minister of India": 90, "Emperor of Japan": 100,
              "Vice President of the United States": 120, "United States Secretary of State": 90}

for _office, _country, _role, _residences, _holders in OFFICES:
    entity(_office, f"office in {_country}" if _role is None else
           {"hos": "head of state", "hog": "head of government", "both": "head of state and government"}[_role]
           + f" of {_country}", OFFICE_POP.get(_office, 45), ["position"])
    claim(_office, "P17", _country)
    for _res, _start, _end in _residences:
        entity(_res, f"official residence in {RESIDENCE_CITY[_res]}", RESIDENCE_POP.get(_res, 35),
               ["official residence", "palace" if _res in PALACES else "building"])
        claim(_res, "P17", _country)
        claim(_res, "P131", RESIDENCE_CITY[_res])
        claim(_office, "P263", _res, start=_start, end=_end)
    if _role in ("hos", "both"):
        claim(_country, "P1906", _office)
    if _role in ("hog", "both"):
        claim(_country, "P1313", _office, end=OFFICE_ROLE_END.get(_office))

# =========================================================================== politicians
M, F = "male", "female"
POLITICIANS = [
    # name, description, popularity, sex, born, died, citizenship, birthplace, aliases
    ("Barack Obama", "president of the United States from 2009 to 2017", 260, M, "1961-08-04", None, ["United States of America"], "Honolulu", ["Barack Hussein Obama II", "Obama"]),
    ("Donald Trump", "president of the United States (2017-2021, since 2025)", 250, M, "1946-06-14", None, ["United States of America"], "New York City", ["Donald John Trump", "Trump"]),
    ("Joe Biden", "president of the United States from 2021 to 2025", 220, M, "1942-11-20", None, ["United States of America"], None, ["Joseph Robinette Biden Jr.", "Biden"]),
    ("Kamala Harris", "vice president of the United States from 2021 to 2025", 150, F, "1964-10-20", None, ["United States of America"], None, []),
    ("Mike Pence", "vice president of the United States from 2017 to 2021", 100, M, "1959-06-07", None, ["United States of America"], None, []),
    ("Hillary Clinton", "United States Secretary of State from 2009 to 2013", 170, F, "1947-10-26", None, ["United States of America"], None, ["Hillary Rodham Clinton"]),
    ("John Kerry", "United States Secretary of State from 2013 to 2017", 110, M, "1943-12-11", None, ["United States of America"], None, []),
    ("Rex Tillerson", "American businessman, Secretary of State 2017-2018", 70, M, "1952-03-23", None, ["United States of America"], None, []),
    ("Mike Pompeo", "United States Secretary of State from 2018 to 2021", 70, M, "1963-12-30", None, ["United States of America"], None, []),
    ("Antony Blinken", "United States Secretary of State from 2021 to 2025", 60, M, "1962-04-16", None, ["United States of America"], "New York City", []),
    ("Elizabeth II", "Queen of the United Kingdom and other Commonwealth realms (1952-2022)", 250, F, "1926-04-21", "2022-09-08", ["United Kingdom"], "London", ["Queen Elizabeth II", "Elizabeth Alexandra Mary"]),
    ("Charles III", "King of the United Kingdom and other Commonwealth realms since 2022", 180, M, "1948-11-14", None, ["United Kingdom"], "London", ["Prince Charles", "Charles, Prince of Wales"]),
    ("Gordon Brown", "Prime Minister of the United Kingdom from 2007 to 2010", 120, M, "1951-02-20", None, ["United Kingdom"], None, []),
    ("David Cameron", "Prime Minister of the United Kingdom from 2010 to 2016", 150, M, "1966-10-09", None, ["United Kingdom"], "London", ["Lord Cameron"]),
    ("Theresa May", "Prime Minister of the United Kingdom from 2016 to 2019", 130, F, "1956-10-01", None, ["United Kingdom"], None, []),
    ("Boris Johnson", "Prime Minister of the United Kingdom from 2019 to 2022", 150, M, "1964-06-19", None, ["United Kingdom"], "New York City", ["Alexander Boris de Pfeffel Johnson", "BoJo"]),
    ("Liz Truss", "Prime Minister of the United Kingdom in 2022", 100, F, "1975-07-26", None, ["United Kingdom"], None, ["Mary Elizabeth Truss"]),
    ("Rishi Sunak", "Prime Minister of the United Kingdom from 2022 to 2024", 110, M, "1980-05-12", None, ["United Kingdom"], None, []),
    ("Keir Starmer", "Prime Minister of the United Kingdom since 2024", 100, M, "1962-09-02", None, ["United Kingdom"], "London", []),
    ("Sadiq Khan", "Mayor of London since 2016", 80, M, "1970-10-08", None, ["United Kingdom"], "London", []),
    ("Nicolas Sarkozy", "President of France from 2007 to 2012", 160, M, "1955-01-28", None, ["France"], "Paris", []),
    ("François Hollande", "President of France from 2012 to 2017", 150, M, "1954-08-12", None, ["France"], None, []),
    ("Emmanuel Macron", "President of France since 2017", 180, M, "1977-12-21", None, ["France"], "Amiens", []),
    ("François Fillon", "Prime Minister of France from 2007 to 2012", 90, M, "1954-03-04", None, ["France"], None, []),
    ("Jean-Marc Ayrault", "Prime Minister of France from 2012 to 2014", 70, M, "1950-01-25", None, ["France"], None, []),
    ("Manuel Valls", "Prime Minister of France from 2014 to 2016", 80, M, "1962-08-13", None, ["France", "Spain"], "Barcelona", []),
    ("Bernard Cazeneuve", "Prime Minister of France from 2016 to 2017", 60, M, "1963-06-02", None, ["France"], None, []),
    ("Édouard Philippe", "Prime Minister of France from 2017 to 2020", 70, M, "1970-11-28", None, ["France"], None, []),
    ("Jean Castex", "Prime Minister of France from 2020 to 2022", 60, M, "1965-06-25", None, ["France"], None, []),
    ("Élisabeth Borne", "Prime Minister of France from 2022 to 2024", 60, F, "1961-04-18", None, ["France"], "Paris", []),
    ("Horst Köhler", "President of Germany from 2004 to 2010", 80, M, "1943-02-22", "2025-02-01", ["Germany"], None, []),
    ("Christian Wulff", "President of Germany from 2010 to 2012", 70, M, "1959-06-19", None, ["Germany"], None, []),
    ("Joachim Gauck", "President of Germany from 2012 to 2017", 80, M, "1940-01-24", None, ["Germany"], None, []),
    ("Frank-Walter Steinmeier", "President of Germany since 2017", 90, M, "1956-01-05", None, ["Germany"], None, []),
    ("Angela Merkel", "Chancellor of Germany from 2005 to 2021", 200, F, "1954-07-17", None, ["Germany"], "Hamburg", ["Angela Dorothea Merkel"]),
    ("Olaf Scholz", "Chancellor of Germany from 2021 to 2025", 110, M, "1958-06-14", None, ["Germany"], None, []),
    ("Giorgio Napolitano", "President of Italy from 2006 to 2015", 90, M, "1925-06-29", "2023-09-22", ["Italy"], None, []),
    ("Sergio Mattarella", "President of Italy since 2015", 80, M, "1941-07-23", None, ["Italy"], None, []),
    ("Silvio Berlusconi", "Italian media tycoon, Prime Minister of Italy", 130, M, "1936-09-29", "2023-06-12", ["Italy"], "Milan", []),
    ("Mario Monti", "Prime Minister of Italy from 2011 to 2013", 80, M, "1943-03-19", None, ["Italy"], None, []),
    ("Enrico Letta", "Prime Minister of Italy from 2013 to 2014", 60, M, "1966-08-20", None, ["Italy"], None, []),
    ("Matteo Renzi", "Prime Minister of Italy from 2014 to 2016", 80, M, "1975-01-11", None, ["Italy"], None, []),
    ("Paolo Gentiloni", "Prime Minister of Italy from 2016 to 2018", 60, M, "1954-11-22", None, ["Italy"], "Rome", []),
    ("Giuseppe Conte", "Prime Minister of Italy from 2018 to 2021", 70, M, "1964-08-08", None, ["Italy"], None, []),
    ("Mario Draghi", "Prime Minister of Italy, President of the European Central Bank", 100, M, "1947-09-03", None, ["Italy"], "Rome", []),
    ("Giorgia Meloni", "Prime Minister of Italy since 2022", 90, F, "1977-01-15", None, ["Italy"], "Rome", []),
    ("Juan Carlos I", "King of Spain from 1975 to 2014", 120, M, "1938-01-05", None, ["Spain"], "Rome", []),
    ("Felipe VI", "King of Spain since 2014", 100, M, "1968-01-30", None, ["Spain"], "Madrid", []),
    ("José Luis Rodríguez Zapatero", "Prime Minister of Spain from 2004 to 2011", 90, M, "1960-08-04", None, ["Spain"], None, ["Zapatero"]),
    ("Mariano Rajoy", "Prime Minister of Spain from 2011 to 2018", 90, M, "1955-03-27", None, ["Spain"], None, []),
    ("Pedro Sánchez", "Prime Minister of Spain since 2018", 90, M, "1972-02-29", None, ["Spain"], "Madrid", []),
    ("Akihito", "Emperor of Japan from 1989 to 2019", 120, M, "1933-12-23", None, ["Japan"], "Tokyo", ["Emperor Emeritus"]),
    ("Naruhito", "Emperor of Japan since 2019", 100, M, "1960-02-23", None, ["Japan"], "Tokyo", []),
    ("Yukio Hatoyama", "Prime Minister of Japan from 2009 to 2010", 70, M, "1947-02-11", None, ["Japan"], "Tokyo", []),
    ("Naoto Kan", "Prime Minister of Japan from 2010 to 2011", 70, M, "1946-10-10", None, ["Japan"], None, []),
    ("Yoshihiko Noda", "Prime Minister of Japan from 2011 to 2012", 60, M, "1957-05-20", None, ["Japan"], None, []),
    ("Shinzo Abe", "Prime Minister of Japan (2006-2007, 2012-2020)", 140, M, "1954-09-21", "2022-07-08", ["Japan"], "Tokyo", []),
    ("Yoshihide Suga", "Prime Minister of Japan from 2020 to 2021", 70, M, "1948-12-06", None, ["Japan"], None, []),
    ("Fumio Kishida", "Prime Minister of Japan from 2021 to 2024", 70, M, "1957-07-29", None, ["Japan"], "Tokyo", []),
    ("Stephen Harper", "Prime Minister of Canada from 2006 to 2015", 90, M, "1959-04-30", None, ["Canada"], None, []),
    ("Justin Trudeau", "Prime Minister of Canada from 2015 to 2025", 130, M, "1971-12-25", None, ["Canada"], "Ottawa", []),
    ("Kevin Rudd", "Prime Minister of Australia (2007-2010, 2013)", 90, M, "1957-09-21", None, ["Australia"], None, []),
    ("Julia Gillard", "Prime Minister of Australia from 2010 to 2013", 90, F, "1961-09-29", None, ["Australia"], None, []),
    ("Tony Abbott", "Prime Minister of Australia from 2013 to 2015", 80, M, "1957-11-04", None, ["Australia"], None, []),
    ("Malcolm Turnbull", "Prime Minister of Australia from 2015 to 2018", 80, M, "1954-10-24", None, ["Australia"], None, []),
    ("Scott Morrison", "Prime Minister of Australia from 2018 to 2022", 70, M, "1968-05-13", None, ["Australia"], None, []),
    ("Anthony Albanese", "Prime Minister of Australia since 2022", 70, M, "1963-03-02", None, ["Australia"], None, []),
    ("Pratibha Patil", "President of India from 2007 to 2012", 70, F, "1934-12-19", None, ["India"], None, []),
    ("Pranab Mukherjee", "President of India from 2012 to 2017", 70, M, "1935-12-11", "2020-08-31", ["India"], None, []),
    ("Ram Nath Kovind", "President of India from 2017 to 2022", 60, M, "1945-10-01", None, ["India"], None, []),
    ("Droupadi Murmu", "President of India since 2022", 60, F, "1958-06-20", None, ["India"], None, []),
    ("Manmohan Singh", "Prime Minister of India from 2004 to 2014", 110, M, "1932-09-26", "2024-12-26", ["India"], None, []),
    ("Narendra Modi", "Prime Minister of India since 2014", 170, M, "1950-09-17", None, ["India"], None, []),
    ("Luiz Inácio Lula da Silva", "President of Brazil (2003-2010, since 2023)", 150, M, "1945-10-27", None, ["Brazil"], None, ["Lula"]),
    ("Dilma Rousseff", "President of Brazil from 2011 to 2016", 110, F, "1947-12-14", None, ["Brazil"], None, []),
    ("Michel Temer", "President of Brazil from 2016 to 2018", 80, M, "1940-09-23", None, ["Brazil"], None, []),
    ("Jair Bolsonaro", "President of Brazil from 2019 to 2022", 100, M, "1955-03-21", None, ["Brazil"], None, []),
    ("Vladimir Putin", "President of Russia", 210, M, "1952-10-07", None, ["Russia"], "Saint Petersburg", ["Vladimir Vladimirovich Putin"]),
    ("Dmitry Medvedev", "President of Russia from 2008 to 2012", 130, M, "1965-09-14", None, ["Russia"], "Saint Petersburg", []),
    ("Mikhail Mishustin", "Prime Minister of Russia since 2020", 60, M, "1966-03-03", None, ["Russia"], None, []),
    ("Hu Jintao", "President of China from 2003 to 2013", 110, M, "1942-12-21", None, ["People's Republic of China"], None, []),
    ("Xi Jinping", "President of China since 2013", 170, M, "1953-06-15", None, ["People's Republic of China"], "Beijing", []),
    ("Wen Jiabao", "Premier of China from 2003 to 2013", 90, M, "1942-09-15", None, ["People's Republic of China"], None, []),
    ("Li Keqiang", "Premier of China from 2013 to 2023", 80, M, "1955-07-01", "2023-10-27", ["People's Republic of China"], None, []),
    ("Li Qiang", "Premier of China since 2023", 50, M, "1959-07-23", None, ["People's Republic of China"], None, []),
    ("Felipe Calderón", "President of Mexico from 2006 to 2012", 80, M, "1962-08-18", None, ["Mexico"], None, []),
    ("Enrique Peña Nieto", "President of Mexico from 2012 to 2018", 80, M, "1966-07-20", None, ["Mexico"], None, []),
    ("Andrés Manuel López Obrador", "President of Mexico from 2018 to 2024", 80, M, "1953-11-13", None, ["Mexico"], None, ["AMLO"]),
    ("Claudia Sheinbaum", "President of Mexico since 2024", 60, F, "1962-06-24", None, ["Mexico"], "Mexico City", []),
    ("Cristina Fernández de Kirchner", "President of Argentina from 2007 to 2015", 90, F, "1953-02-19", None, ["Argentina"], None, []),
    ("Mauricio Macri", "President of Argentina from 2015 to 2019", 80, M, "1959-02-08", None, ["Argentina"], None, []),
    ("Alberto Fernández", "President of Argentina from 2019 to 2023", 60, M, "1959-04-02", None, ["Argentina"], "Buenos Aires", []),
    ("Javier Milei", "President of Argentina since 2023", 70, M, "1970-10-22", None, ["Argentina"], "Buenos Aires", []),
    ("Aníbal Cavaco Silva", "President of Portugal from 2006 to 2016", 70, M, "1939-07-15", None, ["Portugal"], None, []),
    ("Marcelo Rebelo de Sousa", "President of Portugal since 2016", 60, M, "1948-12-12", None, ["Portugal"], "Lisbon", []),
    ("José Sócrates", "Prime Minister of Portugal from 2005 to 2011", 60, M, "1957-09-06", None, ["Portugal"], None, []),
    ("Pedro Passos Coelho", "Prime Minister of Portugal from 2011 to 2015", 50, M, "1964-07-24", None, ["Portugal"], None, []),
    ("António Costa", "Prime Minister of Portugal from 2015 to 2024", 60, M, "1961-07-17", None, ["Portugal"], "Lisbon", []),
    ("Luís Montenegro", "Prime Minister of Portugal since 2024", 30, M, "1973-02-16", None, ["Portugal"], None, []),
    ("Beatrix of the Netherlands", "Queen of the Netherlands from 1980 to 2013", 90, F, "1938-01-31", None, ["Netherlands"], None, ["Princess Beatrix"]),
    ("Willem-Alexander of the Netherlands", "King of the Netherlands since 2013", 90, M, "1967-04-27", None, ["Netherlands"], None, []),
    ("Jan Peter Balkenende", "Prime Minister of the Netherlands from 2002 to 2010", 60, M, "1956-05-07", None, ["Netherlands"], None, []),
    ("Mark Rutte", "Prime Minister of the Netherlands from 2010 to 2024", 80, M, "1967-02-14", None, ["Netherlands"], None, []),
    ("Dick Schoof", "Prime Minister of the Netherlands since 2024", 30, M, "1957-03-08", None, ["Netherlands"], None, []),
    ("Lee Myung-bak", "President of South Korea from 2008 to 2013", 70, M, "1941-12-19", None, ["South Korea"], None, []),
    ("Park Geun-hye", "President of South Korea from 2013 to 2017", 80, F, "1952-02-02", None, ["South Korea"], None, []),
    ("Moon Jae-in", "President of South Korea from 2017 to 2022", 80, M, "1953-01-24", None, ["South Korea"], None, []),
    ("Yoon Suk Yeol", "President of South Korea from 2022 to 2025", 60, M, "1960-12-18", None, ["South Korea"], "Seoul", []),
    ("Abdullah Gül", "President of Turkey from 2007 to 2014", 80, M, "1950-10-29", None, ["Turkey"], None, []),
    ("Recep Tayyip Erdoğan", "President of Turkey since 2014", 150, M, "1954-02-26", None, ["Turkey"], None, ["Erdogan"]),
    ("Ahmet Davutoğlu", "Prime Minister of Turkey from 2014 to 2016", 60, M, "1959-02-26", None, ["Turkey"], None, []),
    ("Binali Yıldırım", "Prime Minister of Turkey from 2016 to 2018", 50, M, "1955-12-20", None, ["Turkey"], None, []),
    ("John Key", "Prime Minister of New Zealand from 2008 to 2016", 70, M, "1961-08-09", None, ["New Zealand"], None, []),
    ("Bill English", "Prime Minister of New Zealand from 2016 to 2017", 40, M, "1961-12-30", None, ["New Zealand"], None, []),
    ("Jacinda Ardern", "Prime Minister of New Zealand from 2017 to 2023", 100, F, "1980-07-26", None, ["New Zealand"], None, []),
    ("Chris Hipkins", "Prime Minister of New Zealand in 2023", 40, M, "1978-09-05", None, ["New Zealand"], "Wellington", []),
    ("Christopher Luxon", "Prime Minister of New Zealand since 2023", 40, M, "1970-07-19", None, ["New Zealand"], None, []),
]
MONARCHS = {"Elizabeth II", "Charles III", "Juan Carlos I", "Felipe VI", "Akihito", "Naruhito",
            "Beatrix of the Netherlands", "Willem-Alexander of the Netherlands"}
LAWYERS = {"Barack Obama", "Kamala Harris", "Hillary Clinton", "Keir Starmer", "Sadiq Khan", "Giuseppe Conte",
           "Nicolas Sarkozy"}
ECONOMISTS = {"Mario Draghi", "Mario Monti", "Manmohan Singh", "Horst Köhler", "Javier Milei"}
for (_n, _d, _p, _s, _b, _x, _c, _bp, _a) in POLITICIANS:
    _occ = ["monarch"] if _n in MONARCHS else ["politician"]
    if _n in LAWYERS:
        _occ.append("lawyer")
    if _n in ECONOMISTS:
        _occ.append("economist")
    if _n == "Rex Tillerson":
        _occ = ["businessperson", "politician", "engineer"]
    person(_n, _d, _p, _s, _b, _c, _occ, died=_x, birthplace=_bp, aliases=_a)

# offices -> P1308 on the office, P39 on the person, P35 / P6 on the country
for _office, _country, _role, _residences, _holders in OFFICES:
    for _holder, _start, _end in _holders:
        claim(_office, "P1308", _holder, start=_start, end=_end)
        claim(_holder, "P39", _office, start=_start, end=_end)
        if _role in ("hos", "both"):
            claim(_country, "P35", _holder, start=_start, end=_end)
        if _role in ("hog", "both"):
            claim(_country, "P6", _holder, start=_start, end=_end)
for _country, _office, _holder, _start, _end in EXTRA_HEAD_OF_GOVERNMENT:
    claim(_country, "P6", _holder, start=_start, end=_end)
    claim(_country, "P1313", _office, start=_start)
claim("Mario Draghi", "P39", "President of the European Central Bank", start="2011-11-01", end="2019-10-31")
entity("President of the European Central Bank", "head of the European Central Bank", 40, ["position"])
claim("Donald Trump", "P551", "Washington, D.C.", start="2017-01-20", end="2021-01-20")
claim("Barack Obama", "P551", "Washington, D.C.", start="2009-01-20")
claim("Barack Obama", "P551", "Honolulu", start="1961", end="1979")

# =========================================================================== spouses
SPOUSES = [
    # person, spouse, spouse description, spouse sex, spouse born, start, end, spouse died, pop
    ("Barack Obama", "Michelle Obama", "First Lady of the United States 2009-2017", F, "1964-01-17", "1992-10-03", None, None, 150),
    ("Donald Trump", "Melania Trump", "First Lady of the United States", F, "1970-04-26", "2005-01-22", None, None, 100),
    ("Donald Trump", "Ivana Trump", "Czech-American businesswoman", F, "1949-02-20", "1977-04-07", "1990-12-11", "2022-07-14", 60),
    ("Joe Biden", "Jill Biden", "First Lady of the United States 2021-2025", F, "1951-06-03", "1977-06-17", None, None, 70),
    ("Emmanuel Macron", "Brigitte Macron", "wife of Emmanuel Macron", F, "1953-04-13", "2007-10-20", None, None, 70),
    ("Angela Merkel", "Joachim Sauer", "German quantum chemist", M, "1949-04-19", "1998-12-30", None, None, 40),
    ("Boris Johnson", "Marina Wheeler", "British barrister", F, "1964-09-18", "1993-05-08", "2020", None, 20),
    ("Boris Johnson", "Carrie Johnson", "British media consultant", F, "1988-03-17", "2021-05-29", None, None, 30),
    ("Elizabeth II", "Prince Philip, Duke of Edinburgh", "consort of Queen Elizabeth II", M, "1921-06-10", "1947-11-20", "2021-04-09", "2021-04-09", 130),
    ("Charles III", "Diana, Princess of Wales", "member of the British royal family", F, "1961-07-01", "1981-07-29", "1996-08-28", "1997-08-31", 170),
    ("Charles III", "Queen Camilla", "Queen of the United Kingdom since 2022", F, "1947-07-17", "2005-04-09", None, None, 90),
    ("Bill Gates", "Melinda French Gates", "American philanthropist", F, "1964-08-15", "1994-01-01", "2021-08-02", None, 80),
    ("Jeff Bezos", "MacKenzie Scott", "American novelist and philanthropist", F, "1970-04-07", "1993", "2019", None, 50),
    ("Elon Musk", "Justine Musk", "Canadian author", F, "1972-09-02", "2000", "2008", None, 20),
    ("Elon Musk", "Talulah Riley", "English actress", F, "1985-09-26", "2010", "2012", None, 40),
    ("Elon Musk", "Talulah Riley", "English actress", F, "1985-09-26", "2013", "2016", None, 40),
    ("Mark Zuckerberg", "Priscilla Chan", "American pediatrician and philanthropist", F, "1985-02-24", "2012-05-19", None, None, 40),
    ("Lionel Messi", "Antonela Roccuzzo", "Argentine model", F, "1988-02-26", "2017-06-30", None, None, 30),
]

# =========================================================================== football
LEAGUES = [("Premier League", "England", "United Kingdom", 150), ("La Liga", "Spain", "Spain", 120),
           ("Serie A", "Italy", "Italy", 110), ("Bundesliga", "Germany", "Germany", 110),
           ("Ligue 1", "France", "France", 100), ("Saudi Pro League", "Saudi Arabia", "Saudi Arabia", 40),
           ("Major League Soccer", "the United States and Canada", "United States of America", 80),
           ("Ekstraklasa", "Poland", "Poland", 50),
           ("Campeonato Brasileiro Série A", "Brazil", "Brazil", 60)]
for _name, _where, _country, _pop in LEAGUES:
    entity(_name, f"top association football league of {_where}", _pop, ["professional sports league"])
    claim(_name, "P17", _country)

# club, league, city, country, popularity, inception, aliases
CLUBS = [
    ("Real Madrid CF", "La Liga", "Madrid", "Spain", 190, "1902-03-06", ["Real Madrid"]),
    ("FC Barcelona", "La Liga", "Barcelona", "Spain", 190, "1899-11-29", ["Barça", "Barcelona"]),
    ("Manchester United F.C.", "Premier League", "Manchester", "United Kingdom", 170, "1878", ["Manchester United", "Man Utd"]),
    ("Juventus FC", "Serie A", "Turin", "Italy", 140, "1897-11-01", ["Juventus", "Juve"]),
    ("Paris Saint-Germain F.C.", "Ligue 1", "Paris", "France", 120, "1970-08-12", ["PSG", "Paris Saint-Germain"]),
    ("FC Bayern Munich", "Bundesliga", "Munich", "Germany", 150, "1900-02-27", ["Bayern Munich", "FC Bayern München"]),
    ("Chelsea F.C.", "Premier League", "London", "United Kingdom", 140, "1905-03-10", ["Chelsea"]),
    ("Liverpool F.C.", "Premier League", "Liverpool", "United Kingdom", 150, "1892-06-03", ["Liverpool"]),
    ("Arsenal F.C.", "Premier League", "London", "United Kingdom", 140, "1886", ["Arsenal"]),
    ("Manchester City F.C.", "Premier League", "Manchester", "United Kingdom", 120, "1880", ["Manchester City", "Man City"]),
    ("Borussia Dortmund", "Bundesliga", "Dortmund", "Germany", 110, "1909-12-19", ["BVB", "Dortmund"]),
    ("Atlético Madrid", "La Liga", "Madrid", "Spain", 110, "1903-04-26", ["Atlético de Madrid", "Atleti"]),
    ("Tottenham Hotspur F.C.", "Premier League", "London", "United Kingdom", 110, "1882-09-05", ["Tottenham", "Spurs"]),
    ("AC Milan", "Serie A", "Milan", "Italy", 130, "1899-12-16", ["Milan"]),
    ("Inter Milan", "Serie A", "Milan", "Italy", 130, "1908-03-09", ["Internazionale", "Inter"]),
    ("AS Monaco FC", "Ligue 1", "Fontvieille", "Monaco", 80, "1924-08-23", ["Monaco"]),
    ("Lille OSC", "Ligue 1", "Lille", "France", 60, "1944-09-23", ["Lille"]),
    ("Al Nassr FC", "Saudi Pro League", "Riyadh", "Saudi Arabia", 60, "1955-10-24", ["Al Nassr", "Al-Nassr"]),
    ("Al Hilal SFC", "Saudi Pro League", "Riyadh", "Saudi Arabia", 60, "1957-10-16", ["Al Hilal"]),
    ("Al-Ittihad Club", "Saudi Pro League", "Jeddah", "Saudi Arabia", 50, "1927-12-26", ["Al-Ittihad"]),
    ("Inter Miami CF", "Major League Soccer", "Fort Lauderdale", "United States of America", 50, "2018-01-29", ["Inter Miami"]),
    ("LA Galaxy", "Major League Soccer", "Carson", "United States of America", 60, "1994-06-15", []),
    ("Los Angeles FC", "Major League Soccer", "Los Angeles", "United States of America", 40, "2014-10-30", ["LAFC"]),
    ("Santos FC", "Campeonato Brasileiro Série A", "Santos", "Brazil", 70, "1912-04-14", ["Santos"]),
    ("Lech Poznań", "Ekstraklasa", "Poznań", "Poland", 50, "1922-03-19", []),
]
for _name, _league, _city, _country, _pop, _inception, _aliases in CLUBS:
    entity(_name, f"association football club based in {_city}", _pop,
           ["association football club"], _aliases)
    claim(_name, "P118", _league)
    claim(_name, "P159", _city)
    claim(_name, "P17", _country)
    claim(_name, "P571", _inception, "time")

# coach, born, citizenship, popularity, died
COACHES = [
    ("Manuel Pellegrini", "1953-09-16", "Chile", 50, None), ("José Mourinho", "1963-01-26", "Portugal", 110, None),
    ("Carlo Ancelotti", "1959-06-10", "Italy", 80, None), ("Rafael Benítez", "1960-04-16", "Spain", 60, None),
    ("Zinedine Zidane", "1972-06-23", "France", 120, None), ("Julen Lopetegui", "1966-08-28", "Spain", 40, None),
    ("Santiago Solari", "1976-10-07", "Argentina", 40, None), ("Pep Guardiola", "1971-01-18", "Spain", 90, None),
    ("Tito Vilanova", "1968-09-17", "Spain", 40, "2014-04-25"), ("Gerardo Martino", "1962-11-20", "Argentina", 40, None),
    ("Luis Enrique", "1970-05-08", "Spain", 60, None), ("Ernesto Valverde", "1964-02-09", "Spain", 40, None),
    ("Quique Setién", "1958-09-27", "Spain", 30, None), ("Ronald Koeman", "1963-03-21", "Netherlands", 60, None),
    ("Xavi", "1980-01-25", "Spain", 80, None), ("Hansi Flick", "1965-02-24", "Germany", 40, None),
    ("Alex Ferguson", "1941-12-31", "United Kingdom", 80, None), ("David Moyes", "1963-04-25", "United Kingdom", 40, None),
    ("Ryan Giggs", "1973-11-29", "United Kingdom", 60, None), ("Louis van Gaal", "1951-08-08", "Netherlands", 50, None),
    ("Ole Gunnar Solskjær", "1973-02-26", "Norway", 50, None), ("Ralf Rangnick", "1958-06-29", "Germany", 30, None),
    ("Erik ten Hag", "1970-02-02", "Netherlands", 30, None), ("Luigi Delneri", "1950-08-23", "Italy", 25, None),
    ("Antonio Conte", "1969-07-31", "Italy", 60, None), ("Massimiliano Allegri", "1967-08-11", "Italy", 40, None),
    ("Maurizio Sarri", "1959-01-10", "Italy", 30, None), ("Andrea Pirlo", "1979-05-19", "Italy", 70, None),
    ("Antoine Kombouaré", "1963-11-16", "France", 20, None), ("Laurent Blanc", "1965-11-19", "France", 50, None),
    ("Unai Emery", "1971-11-03", "Spain", 40, None), ("Thomas Tuchel", "1973-08-29", "Germany", 40, None),
    ("Mauricio Pochettino", "1972-03-02", "Argentina", 50, None), ("Christophe Galtier", "1966-08-26", "France", 20, None),
    ("Jupp Heynckes", "1945-05-09", "Germany", 40, None), ("Niko Kovač", "1971-10-15", "Croatia", 40, None),
    ("Julian Nagelsmann", "1987-07-23", "Germany", 30, None), ("Vincent Kompany", "1986-04-10", "Belgium", 50, None),
    ("André Villas-Boas", "1977-10-17", "Portugal", 40, None), ("Roberto Di Matteo", "1970-05-29", "Italy", 40, None),
    ("Guus Hiddink", "1946-11-08", "Netherlands", 60, None), ("Frank Lampard", "1978-06-20", "United Kingdom", 70, None),
    ("Graham Potter", "1975-05-20", "United Kingdom", 20, None), ("Roy Hodgson", "1947-08-09", "United Kingdom", 50, None),
    ("Kenny Dalglish", "1951-03-04", "United Kingdom", 50, None), ("Brendan Rodgers", "1973-01-26", "United Kingdom", 30, None),
    ("Jürgen Klopp", "1967-06-16", "Germany", 60, None), ("Arne Slot", "1978-09-17", "Netherlands", 20, None),
    ("Arsène Wenger", "1949-10-22", "France", 60, None), ("Mikel Arteta", "1982-03-26", "Spain", 40, None),
    ("Roberto Mancini", "1964-11-27", "Italy", 60, None), ("Quique Sánchez Flores", "1965-02-02", "Spain", 25, None), ("Gregorio Manzano", "1956-03-11", "Spain", 20, None),
    ("Diego Simeone", "1970-04-28", "Argentina", 70, None), ("Rudi Garcia", "1964-02-20", "France", 30, None),
    ("Luís Castro", "1961-09-03", "Portugal", 15, None), ("Phil Neville", "1977-01-21", "United Kingdom", 40, None),
]
DEMONYM = {"Chile": "Chilean", "Portugal": "Portuguese", "Italy": "Italian", "Spain": "Spanish", "France": "French",
           "Argentina": "Argentine", "Netherlands": "Dutch", "Germany": "German", "United Kingdom": "British",
           "Norway": "Norwegian", "Croatia": "Croatian", "Belgium": "Belgian", "Austria": "Austrian",
           "Switzerland": "Swiss", "Australia": "Australian"}
for _name, _born, _country, _pop, _died in COACHES:
    person(_name, f"{DEMONYM[_country]} association football manager", _pop,
           M, _born, [_country], ["association football manager"], died=_died)

HEAD_COACHES = {
    "Real Madrid CF": [("Manuel Pellegrini", "2009-06-01", "2010-05-26"), ("José Mourinho", "2010-05-31", "2013-06-01"),
                       ("Carlo Ancelotti", "2013-06-25", "2015-05-25"), ("Rafael Benítez", "2015-06-03", "2016-01-04"),
                       ("Zinedine Zidane", "2016-01-04", "2018-05-31"), ("Julen Lopetegui", "2018-06-13", "2018-10-29"),
                       ("Santiago Solari", "2018-10-29", "2019-03-11"), ("Zinedine Zidane", "2019-03-11", "2021-05-27"),
                       ("Carlo Ancelotti", "2021-06-01", "2025-05")],
    "FC Barcelona": [("Pep Guardiola", "2008-07-01", "2012-06-30"), ("Tito Vilanova", "2012-07-01", "2013-07-19"),
                     ("Gerardo Martino", "2013-07-26", "2014-05-17"), ("Luis Enrique", "2014-05-19", "2017-06-30"),
                     ("Ernesto Valverde", "2017-05-29", "2020-01-13"), ("Quique Setién", "2020-01-13", "2020-08-17"),
                     ("Ronald Koeman", "2020-08-19", "2021-10-28"), ("Xavi", "2021-11-06", "2024-06-30"),
                     ("Hansi Flick", "2024-07-01", None)],
    "Manchester United F.C.": [("Alex Ferguson", "1986-11-06", "2013-05-19"), ("David Moyes", "2013-07-01", "2014-04-22"),
                               ("Ryan Giggs", "2014-04-22", "2014-05-19"), ("Louis van Gaal", "2014-05-19", "2016-05-23"),
                               ("José Mourinho", "2016-05-27", "2018-12-18"), ("Ole Gunnar Solskjær", "2018-12-19", "2021-11-21"),
                               ("Ralf Rangnick", "2021-11-29", "2022-05-22"), ("Erik ten Hag", "2022-05-23", "2024-10-28")],
    "Juventus FC": [("Luigi Delneri", "2010-05-19", "2011-05-30"), ("Antonio Conte", "2011-05-31", "2014-07-15"),
                    ("Massimiliano Allegri", "2014-07-16", "2019-05-17"), ("Maurizio Sarri", "2019-06-16", "2020-08-08"),
                    ("Andrea Pirlo", "2020-08-08", "2021-05-28"), ("Massimiliano Allegri", "2021-05-28", "2024-05-17")],
    "Paris Saint-Germain F.C.": [("Antoine Kombouaré", "2009-06-01", "2011-12-29"), ("Carlo Ancelotti", "2011-12-30", "2013-06-25"),
                                 ("Laurent Blanc", "2013-06-25", "2016-06-27"), ("Unai Emery", "2016-06-28", "2018-05-20"),
                                 ("Thomas Tuchel", "2018-05-23", "2020-12-24"), ("Mauricio Pochettino", "2021-01-02", "2022-07-05"),
                                 ("Christophe Galtier", "2022-07-05", "2023-07-05"), ("Luis Enrique", "2023-07-05", None)],
    "FC Bayern Munich": [("Louis van Gaal", "2009-07-01", "2011-04-09"), ("Jupp Heynckes", "2011-07-01", "2013-06-30"),
                         ("Pep Guardiola", "2013-07-01", "2016-06-30"), ("Carlo Ancelotti", "2016-07-01", "2017-09-28"),
                         ("Jupp Heynckes", "2017-10-06", "2018-06-30"), ("Niko Kovač", "2018-07-01", "2019-11-03"),
                         ("Hansi Flick", "2019-11-03", "2021-06-30"), ("Julian Nagelsmann", "2021-07-01", "2023-03-24"),
                         ("Thomas Tuchel", "2023-03-24", "2024-06-30"), ("Vincent Kompany", "2024-07-01", None)],
    "Chelsea F.C.": [("Carlo Ancelotti", "2009-07-01", "2011-05-22"), ("André Villas-Boas", "2011-06-22", "2012-03-04"),
                     ("Roberto Di Matteo", "2012-03-04", "2012-11-21"), ("Rafael Benítez", "2012-11-21", "2013-05-27"),
                     ("José Mourinho", "2013-06-03", "2015-12-17"), ("Guus Hiddink", "2015-12-19", "2016-05-15"),
                     ("Antonio Conte", "2016-07-01", "2018-07-13"), ("Maurizio Sarri", "2018-07-14", "2019-06-16"),
                     ("Frank Lampard", "2019-07-04", "2021-01-25"), ("Thomas Tuchel", "2021-01-26", "2022-09-07"),
                     ("Graham Potter", "2022-09-08", "2023-04-02"), ("Frank Lampard", "2023-04-06", "2023-06-30"),
                     ("Mauricio Pochettino", "2023-07-01", "2024-05-21")],
    "Liverpool F.C.": [("Rafael Benítez", "2004-06-16", "2010-06-03"), ("Roy Hodgson", "2010-07-01", "2011-01-08"),
                       ("Kenny Dalglish", "2011-01-08", "2012-05-16"), ("Brendan Rodgers", "2012-06-01", "2015-10-04"),
                       ("Jürgen Klopp", "2015-10-08", "2024-05-31"), ("Arne Slot", "2024-06-01", None)],
    "Arsenal F.C.": [("Arsène Wenger", "1996-10-01", "2018-05-13"), ("Unai Emery", "2018-05-23", "2019-11-29"),
                     ("Mikel Arteta", "2019-12-20", None)],
    "Manchester City F.C.": [("Roberto Mancini", "2009-12-19", "2013-05-14"), ("Manuel Pellegrini", "2013-06-14", "2016-06-30"),
                             ("Pep Guardiola", "2016-07-01", None)],
    "Atlético Madrid": [("Quique Sánchez Flores", "2009-10-23", "2011-06-30"), ("Gregorio Manzano", "2011-07-01", "2011-12-22"),
                        ("Diego Simeone", "2011-12-23", None)],
    "Al Nassr FC": [("Rudi Garcia", "2022-06-30", "2023-04-11"), ("Luís Castro", "2023-07-03", "2024-09-09")],
    "Inter Miami CF": [("Phil Neville", "2021-01-18", "2023-06-01"), ("Gerardo Martino", "2023-06-28", "2024-11-22")],
}
for _club, _rows in HEAD_COACHES.items():
    spells(_club, "P286", _rows)

# footballer, description, popularity, born, citizenship, birthplace, spells (club, start, end, number)
FOOTBALLERS = [
    ("Cristiano Ronaldo", "Portuguese association football player (born 1985)", 190, "1985-02-05", ["Portugal"], "Funchal",
     [("Manchester United F.C.", "2003-08-12", "2009-07-01", "7"), ("Real Madrid CF", "2009-07-01", "2018-07-10", "7"),
      ("Juventus FC", "2018-07-10", "2021-08-31", "7"), ("Manchester United F.C.", "2021-08-31", "2022-11-22", "7"),
      ("Al Nassr FC", "2023", None, "7")], ["CR7", "Cristiano Ronaldo dos Santos Aveiro"]),
    ("Lionel Messi", "Argentine association football player (born 1987)", 200, "1987-06-24", ["Argentina", "Spain"], "Rosario",
     [("FC Barcelona", "2004-10-16", "2021-08-05", "10"), ("Paris Saint-Germain F.C.", "2021-08-10", "2023-06-30", "30"),
      ("Inter Miami CF", "2023-07-15", None, "10")], ["Leo Messi", "Lionel Andrés Messi"]),
    ("Neymar", "Brazilian association football player (born 1992)", 130, "1992-02-05", ["Brazil"], None,
     [("Santos FC", "2009-03-07", "2013-06-03", "11"), ("FC Barcelona", "2013-06-03", "2017-08-03", "11"),
      ("Paris Saint-Germain F.C.", "2017-08-03", "2023-08-15", "10"), ("Al Hilal SFC", "2023-08-15", "2025-01-28", "10"),
      ("Santos FC", "2025-01-31", None, "10")], ["Neymar Jr.", "Neymar da Silva Santos Júnior"]),
    ("Robert Lewandowski", "Polish association football player (born 1988)", 110, "1988-08-21", ["Poland"], "Warsaw",
     [("Lech Poznań", "2008-06-01", "2010-06-30", "8"), ("Borussia Dortmund", "2010-07-01", "2014-06-30", "9"),
      ("FC Bayern Munich", "2014-07-01", "2022-07-19", "9"), ("FC Barcelona", "2022-07-19", None, "9")], ["Lewy"]),
    ("Zlatan Ibrahimović", "Swedish association football player (born 1981)", 120, "1981-10-03", ["Sweden"], "Malmö",
     [("Inter Milan", "2006-08-10", "2009-07-27", "8"), ("FC Barcelona", "2009-07-27", "2010-08-28", "9"),
      ("AC Milan", "2010-08-28", "2012-07-17", "11"), ("Paris Saint-Germain F.C.", "2012-07-18", "2016-06-30", "10"),
      ("Manchester United F.C.", "2016-07-01", "2018-03-22", "9"), ("LA Galaxy", "2018-03-23", "2019-11-13", "9"),
      ("AC Milan", "2020-01-02", "2023-06-04", "11")], ["Zlatan"]),
    ("Kylian Mbappé", "French association football player (born 1998)", 110, "1998-12-20", ["France"], "Paris",
     [("AS Monaco FC", "2015-12-02", "2018-06-30", "10"), ("Paris Saint-Germain F.C.", "2017-08-31", "2024-06-30", "7"),
      ("Real Madrid CF", "2024-07-01", None, "9")], ["Mbappé"]),
    ("Luka Modrić", "Croatian association football player (born 1985)", 100, "1985-09-09", ["Croatia"], None,
     [("Tottenham Hotspur F.C.", "2008-06-01", "2012-08-27", "14"), ("Real Madrid CF", "2012-08-27", "2025-06-30", "10"),
      ("AC Milan", "2025-07-14", None, "14")], []),
    ("Gareth Bale", "Welsh association football player (born 1989)", 100, "1989-07-16", ["United Kingdom"], "Cardiff",
     [("Tottenham Hotspur F.C.", "2007-05-25", "2013-09-01", "11"), ("Real Madrid CF", "2013-09-01", "2022-06-30", "11"),
      ("Tottenham Hotspur F.C.", "2020-09-19", "2021-06-30", "9"), ("Los Angeles FC", "2022-06-27", "2023-01-09", "11")], []),
    ("Harry Kane", "English association football player (born 1993)", 90, "1993-07-28", ["United Kingdom"], "London",
     [("Tottenham Hotspur F.C.", "2009-07-01", "2023-08-12", "10"), ("FC Bayern Munich", "2023-08-12", None, "9")], []),
    ("Karim Benzema", "French association football player (born 1987)", 100, "1987-12-19", ["France"], "Lyon",
     [("Real Madrid CF", "2009-07-09", "2023-06-30", "9"), ("Al-Ittihad Club", "2023-07-01", None, "9")], []),
    ("Eden Hazard", "Belgian association football player (born 1991)", 90, "1991-01-07", ["Belgium"], None,
     [("Lille OSC", "2007-07-01", "2012-06-30", "10"), ("Chelsea F.C.", "2012-07-01", "2019-06-30", "10"),
      ("Real Madrid CF", "2019-07-01", "2023-06-30", "7")], []),
]
for _n, _d, _p, _b, _c, _bp, _rows, _a in FOOTBALLERS:
    person(_n, _d, _p, M, _b, _c, ["association football player"], birthplace=_bp, aliases=_a)
    spells(_n, "P54", _rows)
    for _club, _start, _end, _number in _rows:
        if _end is None:  # the current shirt number, also as a statement of its own
            claim(_n, "P1618", _number, "string", start=_start)
    _last = _rows[-1]
    if _last[2] is None:
        _city = next(c[2] for c in CLUBS if c[0] == _last[0])
        claim(_n, "P551", _city, start=_last[1])
# a wrong birth date kept in the record with deprecated rank, as Wikidata does
claim("Lionel Messi", "P569", "1987-06-25", "time", rank="deprecated")
claim("Xavi", "P54", "FC Barcelona", start="1998-08-18", end="2015-06-30", number="6")
claim("Xavi", "P106", "association football player")
claim("Zinedine Zidane", "P106", "association football player")
claim("Frank Lampard", "P54", "Chelsea F.C.", start="2001-07-03", end="2014-06-30", number="8")
claim("Frank Lampard", "P106", "association football player")

# =========================================================================== companies
# company, description, popularity, inception, founders, HQ rows (city, start, end, rank),
# industries, CEO rows (person, start, end), parent rows (org, start, end), p31, aliases
COMPANIES = [
    ("Microsoft", "American multinational technology corporation", 200, "1975-04-04", ["Bill Gates", "Paul Allen"],
     [("Redmond", None, None, "normal")], ["software industry", "information technology"],
     [("Bill Gates", "1975-04-04", "2000-01-13"), ("Steve Ballmer", "2000-01-13", "2014-02-04"), ("Satya Nadella", "2014-02-04", None)],
     [], ["Microsoft Corporation", "MSFT"]),
    ("Apple Inc.", "American multinational technology company", 190, "1976-04-01", ["Steve Jobs", "Steve Wozniak", "Ronald Wayne"],
     [("Cupertino", None, None, "normal")], ["information technology"],
     [("Steve Jobs", "1997-09-16", "2011-08-24"), ("Tim Cook", "2011-08-24", None)], [], ["Apple", "Apple Computer, Inc."]),
    ("Amazon", "American multinational technology company", 150, "1994-07-05", ["Jeff Bezos"],
     [("Seattle", None, None, "normal")], ["e-commerce", "information technology"],
     [("Jeff Bezos", "1994-07-05", "2021-07-05"), ("Andy Jassy", "2021-07-05", None)], [], ["Amazon.com, Inc.", "Amazon.com"]),
    ("Google", "American multinational technology company", 180, "1998-09-04", ["Larry Page", "Sergey Brin"],
     [("Mountain View", None, None, "normal")], ["information technology", "artificial intelligence"],
     [("Larry Page", "1998-09-04", "2001-08-06"), ("Eric Schmidt", "2001-08-06", "2011-04-04"),
      ("Larry Page", "2011-04-04", "2015-10-02"), ("Sundar Pichai", "2015-10-02", None)],
     [("Alphabet Inc.", "2015-10-02", None)], ["Google LLC", "Google Inc."]),
    ("Alphabet Inc.", "American multinational technology conglomerate, parent of Google", 90, "2015-10-02", ["Larry Page", "Sergey Brin"],
     [("Mountain View", None, None, "normal")], ["information technology"],
     [("Larry Page", "2015-10-02", "2019-12-03"), ("Sundar Pichai", "2019-12-03", None)], [], ["Alphabet"]),
    ("Meta Platforms", "American multinational technology conglomerate", 150, "2004-02-04", ["Mark Zuckerberg", "Eduardo Saverin"],
     [("Menlo Park", None, None, "normal")], ["social media", "information technology"],
     [("Mark Zuckerberg", "2004-07-29", None)], [], ["Meta", "Facebook, Inc.", "TheFacebook, Inc."]),
    ("IBM", "American multinational technology corporation", 160, "1911-06-16", ["Charles Ranlett Flint"],
     [("Armonk", None, None, "normal")], ["information technology"],
     [("Sam Palmisano", "2002-03-01", "2011-12-31"), ("Ginni Rometty", "2012-01-01", "2020-04-06"), ("Arvind Krishna", "2020-04-06", None)],
     [], ["International Business Machines Corporation", "Big Blue"]),
    ("Intel", "American multinational semiconductor company", 140, "1968-07-18", ["Gordon Moore", "Robert Noyce"],
     [("Santa Clara", None, None, "normal")], ["semiconductor industry"],
     [("Paul Otellini", "2005-05-18", "2013-05-16"), ("Brian Krzanich", "2013-05-16", "2018-06-21"),
      ("Bob Swan", "2018-06-21", "2021-02-15"), ("Pat Gelsinger", "2021-02-15", "2024-12-01"), ("Lip-Bu Tan", "2025-03-18", None)],
     [], ["Intel Corporation"]),
    ("The Walt Disney Company", "American multinational mass media and entertainment conglomerate", 130, "1923-10-16",
     ["Walt Disney", "Roy O. Disney"], [("Burbank", None, None, "normal")], ["mass media"],
     [("Bob Iger", "2005-10-01", "2020-02-25"), ("Bob Chapek", "2020-02-25", "2022-11-20"), ("Bob Iger", "2022-11-20", None)],
     [], ["Disney", "Walt Disney Productions"]),
    ("Twitter, Inc.", "American social media company (2006-2023), merged into X Corp.", 110, "2006-03-21",
     ["Jack Dorsey", "Evan Williams", "Biz Stone"], [("San Francisco", None, None, "normal")], ["social media"],
     [("Jack Dorsey", "2006-03-21", "2008-10-16"), ("Evan Williams", "2008-10-16", "2010-10-04"),
      ("Dick Costolo", "2010-10-04", "2015-07-01"), ("Jack Dorsey", "2015-07-01", "2021-11-29"),
      ("Parag Agrawal", "2021-11-29", "2022-10-27"), ("Elon Musk", "2022-10-27", "2023-06-05"),
      ("Linda Yaccarino", "2023-06-05", "2025-07-09")], [], ["Twitter", "X Corp."]),
    ("LinkedIn", "American business and employment-oriented social network", 90, "2002-12-28", ["Reid Hoffman"],
     [("Sunnyvale", None, None, "normal")], ["social media"],
     [("Reid Hoffman", "2003", "2007"), ("Jeff Weiner", "2008-12", "2020-06-01"), ("Ryan Roslansky", "2020-06-01", None)],
     [("Microsoft", "2016-12-08", None)], ["LinkedIn Corporation"]),
    ("GitHub", "software development and version control hosting service", 70, "2008-02-08",
     ["Chris Wanstrath", "Tom Preston-Werner"], [("San Francisco", None, None, "normal")], ["software industry"],
     [("Chris Wanstrath", "2008", "2018-10-29"), ("Nat Friedman", "2018-10-29", "2021-11-15"), ("Thomas Dohmke", "2021-11-15", "2025-08")],
     [("Microsoft", "2018-10-26", None)], ["GitHub, Inc."]),
    ("YouTube", "American online video sharing platform", 150, "2005-02-14", ["Chad Hurley", "Steve Chen", "Jawed Karim"],
     [("San Bruno", None, None, "normal")], ["social media", "mass media"],
     [("Chad Hurley", "2005-02-14", "2010-10-29"), ("Salar Kamangar", "2010-10-29", "2014-02-05"),
      ("Susan Wojcicki", "2014-02-05", "2023-02-16"), ("Neal Mohan", "2023-02-16", None)],
     [("Google", "2006-11-13", None)], []),
    ("Instagram", "photo and video sharing social networking service", 120, "2010-10-06", ["Kevin Systrom", "Mike Krieger"],
     [("Menlo Park", None, None, "normal")], ["social media"],
     [("Kevin Systrom", "2010-10-06", "2018-09-24")], [("Meta Platforms", "2012-04-09", None)], ["IG", "Insta"]),
    ("WhatsApp", "instant messaging service owned by Meta Platforms", 120, "2009-02-24", ["Jan Koum", "Brian Acton"],
     [("Menlo Park", None, None, "normal")], ["social media"],
     [("Jan Koum", "2009-02-24", "2018-04-30")], [("Meta Platforms", "2014-10-06", None)], ["WhatsApp Messenger"]),
    ("Tesla, Inc.", "American electric vehicle and clean energy company", 120, "2003-07-01",
     ["Martin Eberhard", "Marc Tarpenning", "Elon Musk"],
     [("Palo Alto", "2009", "2021-12-01", "normal"), ("Austin", "2021-12-01", None, "preferred")], ["automotive industry"],
     [("Martin Eberhard", "2003-07-01", "2007-08"), ("Elon Musk", "2008-10", None)], [], ["Tesla", "Tesla Motors"]),
    ("Nvidia", "American multinational technology company", 90, "1993-04-05", ["Jensen Huang", "Chris Malachowsky", "Curtis Priem"],
     [("Santa Clara", None, None, "normal")], ["semiconductor industry", "artificial intelligence"],
     [("Jensen Huang", "1993-04-05", None)], [], ["NVIDIA Corporation"]),
    ("ExxonMobil", "American multinational oil and gas corporation", 90, "1999-11-30", [],
     [("Irving", None, None, "normal")], ["petroleum industry"],
     [("Rex Tillerson", "2006-01-01", "2016-12-31"), ("Darren Woods", "2017-01-01", None)], [], ["Exxon Mobil Corporation"]),
    ("OpenAI", "American artificial intelligence research organization", 90, "2015-12-11",
     ["Sam Altman", "Elon Musk", "Ilya Sutskever", "Greg Brockman"], [("San Francisco", None, None, "normal")],
     ["artificial intelligence"],
     [("Sam Altman", "2019-03", "2023-11-17"), ("Mira Murati", "2023-11-17", "2023-11-20"),
      ("Emmett Shear", "2023-11-20", "2023-11-22"), ("Sam Altman", "2023-11-22", None)], [], ["OpenAI, Inc."]),
    ("SpaceX", "American spacecraft manufacturer and launch provider", 100, "2002-03-14", ["Elon Musk"],
     [("Hawthorne", None, None, "normal")], ["aerospace industry"],
     [("Elon Musk", "2002-03-14", None)], [], ["Space Exploration Technologies Corp."]),
    ("Compaq", "American computer company (1982-2002)", 70, "1982-02-14", [], [("Irving", None, None, "normal")],
     ["information technology"], [], [], []),
    ("EMC Corporation", "American data storage company (1979-2016)", 40, "1979-08", [], [], ["information technology"], [], [], []),
    ("VMware", "American cloud computing and virtualization company", 50, "1998", [], [("Palo Alto", None, None, "normal")],
     ["software industry"], [("Pat Gelsinger", "2012-09-01", "2021-02-15")], [], []),
    ("Y Combinator", "American technology startup accelerator", 40, "2005-03", ["Paul Graham"],
     [("Mountain View", None, None, "normal")], ["information technology"], [("Sam Altman", "2014-02", "2019-03")], [], ["YC"]),
]
PUBLIC = {"Microsoft", "Apple Inc.", "Amazon", "Alphabet Inc.", "Meta Platforms", "IBM", "Intel",
          "The Walt Disney Company", "Tesla, Inc.", "Nvidia", "ExxonMobil"}
for (_n, _d, _p, _inc, _founders, _hq, _ind, _ceos, _parents, _aliases) in COMPANIES:
    entity(_n, _d, _p, ["business"] + (["public company"] if _n in PUBLIC else []), _aliases)
    claim(_n, "P571", _inc, "time")
    for _city, _start, _end, _rank in _hq:
        claim(_n, "P159", _city, start=_start, end=_end, rank=_rank)
    for _i in _ind:
        claim(_n, "P452", _i)
    claim(_n, "P17", "United States of America")
# Meta's former legal name, as a monolingual-text statement with a validity interval
claim("Meta Platforms", "P1448", "Facebook, Inc.", "mono", start="2005-09", end="2021-10-28")
claim("Meta Platforms", "P1448", "Meta Platforms, Inc.", "mono", start="2021-10-28", rank="preferred")

# business people: name, description, popularity, sex, born, died, citizenship, birthplace, aliases
BUSINESS_PEOPLE = [
    ("Bill Gates", "American businessman, co-founder of Microsoft", 200, M, "1955-10-28", None, ["United States of America"], "Seattle", ["William Henry Gates III"]),
    ("Paul Allen", "American businessman, co-founder of Microsoft", 90, M, "1953-01-21", "2018-10-15", ["United States of America"], "Seattle", []),
    ("Steve Ballmer", "American businessman, CEO of Microsoft 2000-2014", 80, M, "1956-03-24", None, ["United States of America"], None, []),
    ("Satya Nadella", "Indian-American business executive, CEO of Microsoft since 2014", 90, M, "1967-08-19", None, ["United States of America"], None, []),
    ("Steve Jobs", "American entrepreneur, co-founder of Apple (1955-2011)", 190, M, "1955-02-24", "2011-10-05", ["United States of America"], "San Francisco", ["Steven Paul Jobs"]),
    ("Steve Wozniak", "American computer engineer, co-founder of Apple", 100, M, "1950-08-11", None, ["United States of America"], None, ["Woz"]),
    ("Ronald Wayne", "American co-founder of Apple", 40, M, "1934-05-17", None, ["United States of America"], None, []),
    ("Tim Cook", "American business executive, CEO of Apple since 2011", 110, M, "1960-11-01", None, ["United States of America"], None, ["Timothy Donald Cook"]),
    ("Jeff Bezos", "American businessman, founder of Amazon", 150, M, "1964-01-12", None, ["United States of America"], None, []),
    ("Andy Jassy", "American business executive, CEO of Amazon since 2021", 30, M, "1968-01-13", None, ["United States of America"], None, []),
    ("Larry Page", "American computer scientist, co-founder of Google", 120, M, "1973-03-26", None, ["United States of America"], None, ["Lawrence Edward Page"]),
    ("Sergey Brin", "American computer scientist, co-founder of Google", 110, M, "1973-08-21", None, ["United States of America"], "Moscow", []),
    ("Eric Schmidt", "American businessman, CEO of Google 2001-2011", 70, M, "1955-04-27", None, ["United States of America"], None, []),
    ("Sundar Pichai", "Indian-American business executive, CEO of Google and Alphabet", 80, M, "1972-06-10", None, ["United States of America"], None, []),
    ("Mark Zuckerberg", "American businessman, co-founder and CEO of Meta Platforms", 160, M, "1984-05-14", None, ["United States of America"], None, []),
    ("Eduardo Saverin", "Brazilian-American co-founder of Facebook", 60, M, "1982-03-19", None, ["Brazil"], None, []),
    ("Charles Ranlett Flint", "American businessman, founder of IBM's predecessor", 20, M, "1850-01-24", "1934-02-12", ["United States of America"], None, []),
    ("Sam Palmisano", "American business executive, CEO of IBM 2002-2011", 25, M, "1951-07-29", None, ["United States of America"], None, []),
    ("Ginni Rometty", "American business executive, CEO of IBM 2012-2020", 35, F, "1957-07-29", None, ["United States of America"], "Chicago", []),
    ("Arvind Krishna", "Indian-American business executive, CEO of IBM since 2020", 20, M, "1962-11-23", None, ["United States of America"], None, []),
    ("Gordon Moore", "American engineer, co-founder of Intel", 70, M, "1929-01-03", "2023-03-24", ["United States of America"], "San Francisco", []),
    ("Robert Noyce", "American physicist, co-founder of Intel", 60, M, "1927-12-12", "1990-06-03", ["United States of America"], None, []),
    ("Paul Otellini", "American business executive, CEO of Intel 2005-2013", 25, M, "1950-10-12", "2017-10-02", ["United States of America"], "San Francisco", []),
    ("Brian Krzanich", "American business executive, CEO of Intel 2013-2018", 20, M, "1960-05-09", None, ["United States of America"], None, []),
    ("Bob Swan", "American business executive, CEO of Intel 2019-2021", 15, M, "1960-09-16", None, ["United States of America"], None, []),
    ("Pat Gelsinger", "American business executive, CEO of Intel 2021-2024", 20, M, "1961-03-05", None, ["United States of America"], None, []),
    ("Lip-Bu Tan", "Malaysian-American business executive, CEO of Intel since 2025", 10, M, "1959-11-12", None, ["United States of America"], None, []),
    ("Walt Disney", "American animator and businessman (1901-1966)", 180, M, "1901-12-05", "1966-12-15", ["United States of America"], "Chicago", []),
    ("Roy O. Disney", "American businessman, co-founder of the Walt Disney Company", 40, M, "1893-06-24", "1971-12-20", ["United States of America"], "Chicago", []),
    ("Bob Iger", "American business executive, CEO of the Walt Disney Company", 50, M, "1951-02-10", None, ["United States of America"], "New York City", ["Robert Allen Iger"]),
    ("Bob Chapek", "American business executive, CEO of Disney 2020-2022", 20, M, "1960-08-21", None, ["United States of America"], None, []),
    ("Jack Dorsey", "American entrepreneur, co-founder of Twitter", 70, M, "1976-11-19", None, ["United States of America"], None, []),
    ("Evan Williams", "American entrepreneur, co-founder of Twitter", 50, M, "1972-03-31", None, ["United States of America"], None, []),
    ("Biz Stone", "American entrepreneur, co-founder of Twitter", 40, M, "1974-03-10", None, ["United States of America"], None, []),
    ("Dick Costolo", "American business executive, CEO of Twitter 2010-2015", 25, M, "1963-09-10", None, ["United States of America"], None, []),
    ("Parag Agrawal", "Indian-American engineer, CEO of Twitter 2021-2022", 20, M, "1984-05-21", None, ["United States of America"], None, []),
    ("Linda Yaccarino", "American business executive, CEO of X 2023-2025", 20, F, "1963-12-21", None, ["United States of America"], None, []),
    ("Reid Hoffman", "American entrepreneur, co-founder of LinkedIn", 50, M, "1967-08-05", None, ["United States of America"], None, []),
    ("Jeff Weiner", "American business executive, CEO of LinkedIn 2009-2020", 20, M, "1970-02-21", None, ["United States of America"], None, []),
    ("Ryan Roslansky", "American business executive, CEO of LinkedIn since 2020", 10, M, "1978", None, ["United States of America"], None, []),
    ("Chris Wanstrath", "American software developer, co-founder of GitHub", 15, M, "1985", None, ["United States of America"], None, []),
    ("Tom Preston-Werner", "American software developer, co-founder of GitHub", 20, M, "1979-10-28", None, ["United States of America"], None, []),
    ("Nat Friedman", "American technology executive, CEO of GitHub 2018-2021", 15, M, "1977-08-06", None, ["United States of America"], None, []),
    ("Thomas Dohmke", "German-American technology executive, CEO of GitHub 2021-2025", 10, M, "1978", None, ["Germany"], None, []),
    ("Chad Hurley", "American entrepreneur, co-founder of YouTube", 50, M, "1977-01-24", None, ["United States of America"], None, []),
    ("Steve Chen", "Taiwanese-American entrepreneur, co-founder of YouTube", 40, M, "1978-08-18", None, ["United States of America"], None, []),
    ("Jawed Karim", "German-American entrepreneur, co-founder of YouTube", 40, M, "1979-10-28", None, ["United States of America", "Germany"], None, []),
    ("Salar Kamangar", "American business executive, CEO of YouTube 2010-2014", 15, M, "1977", None, ["United States of America"], None, []),
    ("Susan Wojcicki", "American business executive, CEO of YouTube 2014-2023", 50, F, "1968-07-05", "2024-08-09", ["United States of America"], None, []),
    ("Neal Mohan", "Indian-American business executive, CEO of YouTube since 2023", 15, M, "1973-07-14", None, ["United States of America"], None, []),
    ("Kevin Systrom", "American entrepreneur, co-founder of Instagram", 40, M, "1983-12-30", None, ["United States of America"], None, []),
    ("Mike Krieger", "Brazilian-American software engineer, co-founder of Instagram", 25, M, "1986-03-04", None, ["Brazil", "United States of America"], None, []),
    ("Adam Mosseri", "American business executive, head of Instagram since 2018", 15, M, "1983-01-23", None, ["United States of America"], None, []),
    ("Jan Koum", "Ukrainian-American businessman, co-founder of WhatsApp", 40, M, "1976-02-24", None, ["United States of America"], None, []),
    ("Brian Acton", "American programmer, co-founder of WhatsApp", 30, M, "1972-02-17", None, ["United States of America"], None, []),
    ("Will Cathcart", "American business executive, head of WhatsApp since 2019", 10, M, "1980", None, ["United States of America"], None, []),
    ("Elon Musk", "businessman, CEO of Tesla and SpaceX", 190, M, "1971-06-28", None, ["United States of America", "Canada"], None, ["Elon Reeve Musk"]),
    ("Martin Eberhard", "American engineer, co-founder of Tesla", 25, M, "1960-03-15", None, ["United States of America"], None, []),
    ("Marc Tarpenning", "American engineer, co-founder of Tesla", 15, M, "1964", None, ["United States of America"], None, []),
    ("Jensen Huang", "Taiwanese-American businessman, co-founder and CEO of Nvidia", 60, M, "1963-02-17", None, ["United States of America"], None, []),
    ("Chris Malachowsky", "American engineer, co-founder of Nvidia", 15, M, "1959-05-02", None, ["United States of America"], None, []),
    ("Curtis Priem", "American engineer, co-founder of Nvidia", 15, M, "1959", None, ["United States of America"], None, []),
    ("Darren Woods", "American business executive, CEO of ExxonMobil since 2017", 15, M, "1964-11-26", None, ["United States of America"], None, []),
    ("Sam Altman", "American entrepreneur, CEO of OpenAI", 70, M, "1985-04-22", None, ["United States of America"], "Chicago", []),
    ("Ilya Sutskever", "computer scientist, co-founder of OpenAI", 40, M, "1986-12-08", None, ["Canada"], None, []),
    ("Greg Brockman", "American entrepreneur, co-founder of OpenAI", 20, M, "1987-11-29", None, ["United States of America"], None, []),
    ("Mira Murati", "Albanian-American engineer, interim CEO of OpenAI in 2023", 30, F, "1988-12-16", None, ["United States of America"], None, []),
    ("Emmett Shear", "American entrepreneur, interim CEO of OpenAI in 2023", 15, M, "1983", None, ["United States of America"], None, []),
    ("Paul Graham", "English-American programmer, co-founder of Y Combinator", 50, M, "1964-11-13", None, ["United States of America", "United Kingdom"], None, []),
    ("Charles Bolden", "NASA Administrator from 2009 to 2017", 40, M, "1946-08-19", None, ["United States of America"], None, []),
    ("Jim Bridenstine", "NASA Administrator from 2018 to 2021", 30, M, "1975-06-15", None, ["United States of America"], None, []),
    ("Bill Nelson", "NASA Administrator from 2021 to 2025", 40, M, "1942-09-29", None, ["United States of America"], None, []),
    ("Dominique Strauss-Kahn", "Managing Director of the IMF from 2007 to 2011", 70, M, "1949-04-25", None, ["France"], None, ["DSK"]),
    ("Christine Lagarde", "President of the European Central Bank since 2019", 90, F, "1956-01-01", None, ["France"], "Paris", []),
    ("Kristalina Georgieva", "Managing Director of the IMF since 2019", 50, F, "1953-08-13", None, ["Bulgaria"], None, []),
    ("Jean-Claude Trichet", "President of the European Central Bank from 2003 to 2011", 50, M, "1942-12-20", None, ["France"], "Lyon", []),
    ("Margaret Chan", "Director-General of the WHO from 2007 to 2017", 50, F, "1947-08-21", None, ["People's Republic of China"], None, []),
    ("Tedros Adhanom Ghebreyesus", "Director-General of the WHO since 2017", 80, M, "1965-03-03", None, ["Ethiopia"], None, ["Tedros"]),
]
entity("Chicago", "city in Illinois, United States", 260, ["city"])
claim("Chicago", "P17", "United States of America")
for _name, _pop in [("Bulgaria", 300), ("Ethiopia", 300)]:
    entity(_name, "sovereign state", _pop, ["sovereign state"])
ENGINEERS = {"Steve Wozniak", "Gordon Moore", "Robert Noyce", "Martin Eberhard", "Marc Tarpenning", "Chris Malachowsky",
             "Curtis Priem", "Pat Gelsinger", "Mira Murati", "Parag Agrawal", "Jensen Huang"}
SCIENTISTS = {"Larry Page", "Sergey Brin", "Ilya Sutskever", "Eric Schmidt", "Paul Graham"}
OFFICIALS = {"Charles Bolden", "Jim Bridenstine", "Bill Nelson", "Dominique Strauss-Kahn", "Christine Lagarde",
             "Kristalina Georgieva", "Jean-Claude Trichet", "Margaret Chan", "Tedros Adhanom Ghebreyesus"}
for (_n, _d, _p, _s, _b, _x, _c, _bp, _a) in BUSINESS_PEOPLE:
    _occ = ["politician"] if _n in OFFICIALS else ["businessperson"]
    if _n in ENGINEERS:
        _occ.append("engineer")
    if _n in SCIENTISTS:
        _occ.append("computer scientist")
    if _n in {"Christine Lagarde"}:
        _occ.append("lawyer")
    if _n in {"Dominique Strauss-Kahn", "Kristalina Georgieva"}:
        _occ.append("economist")
    person(_n, _d, _p, _s, _b, _c, _occ, died=_x, birthplace=_bp, aliases=_a)

for (_who, _spouse, _desc, _sex, _born, _start, _end, _died, _pop) in SPOUSES:
    if qid(_spouse) not in ENTITIES:
        person(_spouse, _desc, _pop, _sex, _born, ["United States of America"] if _who in
               {"Barack Obama", "Donald Trump", "Joe Biden", "Bill Gates", "Jeff Bezos", "Mark Zuckerberg"} else [],
               [], died=_died)
    claim(_who, "P26", _spouse, start=_start, end=_end)
    claim(_spouse, "P26", _who, start=_start, end=_end)
claim("Michelle Obama", "P106", "lawyer")
claim("Brigitte Macron", "P27", "France")
claim("Joachim Sauer", "P27", "Germany")
claim("Prince Philip, Duke of Edinburgh", "P27", "United Kingdom")
claim("Diana, Princess of Wales", "P27", "United Kingdom")
claim("Queen Camilla", "P27", "United Kingdom")
claim("Marina Wheeler", "P27", "United Kingdom")
claim("Carrie Johnson", "P27", "United Kingdom")
claim("Antonela Roccuzzo", "P27", "Argentina")
claim("Justine Musk", "P27", "Canada")
claim("Talulah Riley", "P27", "United Kingdom")
claim("Ivana Trump", "P27", "United States of America")

for (_n, _d, _p, _inc, _founders, _hq, _ind, _ceos, _parents, _aliases) in COMPANIES:
    for _f in _founders:
        claim(_n, "P112", _f)
    spells(_n, "P169", _ceos)
    spells(_n, "P749", _parents)

DIRECTORS = {  # P1037 director / manager
    "NASA": [("Charles Bolden", "2009-07-17", "2017-01-20"), ("Jim Bridenstine", "2018-04-23", "2021-01-20"),
             ("Bill Nelson", "2021-05-03", "2025-01-20")],
    "International Monetary Fund": [("Dominique Strauss-Kahn", "2007-11-01", "2011-05-18"),
                                    ("Christine Lagarde", "2011-07-05", "2019-09-12"),
                                    ("Kristalina Georgieva", "2019-10-01", None)],
    "European Central Bank": [("Jean-Claude Trichet", "2003-11-01", "2011-10-31"), ("Mario Draghi", "2011-11-01", "2019-10-31"),
                              ("Christine Lagarde", "2019-11-01", None)],
    "World Health Organization": [("Margaret Chan", "2007-01-04", "2017-06-30"),
                                  ("Tedros Adhanom Ghebreyesus", "2017-07-01", None)],
    "Instagram": [("Kevin Systrom", "2010-10-06", "2018-09-24"), ("Adam Mosseri", "2018-10-01", None)],
    "WhatsApp": [("Jan Koum", "2009-02-24", "2018-04-30"), ("Will Cathcart", "2019-03", None)],
}
for _org, _rows in DIRECTORS.items():
    spells(_org, "P1037", _rows)
claim("NASA", "P17", "United States of America")
claim("European Central Bank", "P159", "Frankfurt")
entity("Frankfurt", "city in Hesse, Germany", 230, ["city"])
claim("Frankfurt", "P17", "Germany")

EMPLOYERS = {  # P108 employer histories
    "Satya Nadella": [("Microsoft", "1992", None)],
    "Sundar Pichai": [("Google", "2004-04-01", None)],
    "Tim Cook": [("IBM", "1982", "1994"), ("Compaq", "1997", "1998"), ("Apple Inc.", "1998-03", None)],
    "Andy Jassy": [("Amazon", "1997", None)],
    "Steve Ballmer": [("Microsoft", "1980-06-11", "2014-08-19")],
    "Arvind Krishna": [("IBM", "1990", None)],
    "Ginni Rometty": [("IBM", "1981", "2020-12-31")],
    "Pat Gelsinger": [("Intel", "1979", "2009-09"), ("EMC Corporation", "2009-09", "2012-09-01"),
                      ("VMware", "2012-09-01", "2021-02-15"), ("Intel", "2021-02-15", "2024-12-01")],
    "Adam Mosseri": [("Meta Platforms", "2008", None)],
    "Susan Wojcicki": [("Google", "1999", "2014-02-05"), ("YouTube", "2014-02-05", "2023-02-16")],
    "Rex Tillerson": [("ExxonMobil", "1975", "2016-12-31")],
    "Sam Altman": [("Y Combinator", "2011", "2019-03"), ("OpenAI", "2019-03", None)],
    "Mira Murati": [("Tesla, Inc.", "2013", "2016"), ("OpenAI", "2016", "2024-09-25")],
    "Elon Musk": [("SpaceX", "2002-03-14", None), ("Tesla, Inc.", "2004-02", None)],
    "Jeff Weiner": [("LinkedIn", "2008-12", "2020-06-01")],
    "Eric Schmidt": [("Google", "2001-08-06", "2017-12-21")],
}
for _p, _rows in EMPLOYERS.items():
    spells(_p, "P108", _rows)

EDUCATION = {  # P69 educated at
    "Barack Obama": [("Occidental College", "1979", "1981"), ("Columbia University", "1981", "1983"),
                     ("Harvard University", "1988", "1991")],
    "Joe Biden": [("University of Delaware", "1961", "1965")],
    "Donald Trump": [("University of Pennsylvania", "1966", "1968")],
    "Emmanuel Macron": [("Sciences Po", None, "2001"), ("École nationale d'administration", "2002", "2004")],
    "Angela Merkel": [("Leipzig University", "1973", "1978")],
    "David Cameron": [("University of Oxford", "1985", "1988")],
    "Theresa May": [("University of Oxford", "1974", "1977")],
    "Boris Johnson": [("University of Oxford", "1983", "1987")],
    "Liz Truss": [("University of Oxford", "1993", "1996")],
    "Rishi Sunak": [("University of Oxford", "1998", "2001"), ("Stanford University", "2004", "2006")],
    "Bill Gates": [("Harvard University", "1973", "1975")],
    "Mark Zuckerberg": [("Harvard University", "2002", "2004")],
    "Steve Ballmer": [("Harvard University", "1973", "1977"), ("Stanford University", "1979", "1980")],
    "Satya Nadella": [("University of Chicago", "1994", "1997")],
    "Sundar Pichai": [("Stanford University", "1993", "1995"), ("University of Pennsylvania", "2000", "2002")],
    "Tim Cook": [("Duke University", "1986", "1988")],
    "Jeff Bezos": [("Princeton University", "1982", "1986")],
    "Larry Page": [("Stanford University", "1995", "1998")],
    "Sergey Brin": [("Stanford University", "1993", "1995")],
    "Elon Musk": [("University of Pennsylvania", "1992", "1997")],
    "Andy Jassy": [("Harvard University", "1986", "1990"), ("Harvard University", "1995", "1997")],
    "Susan Wojcicki": [("Harvard University", "1986", "1990")],
    "Sam Altman": [("Stanford University", "2003", "2005")],
    "Michelle Obama": [("Princeton University", "1981", "1985"), ("Harvard University", "1985", "1988")],
    "Kamala Harris": [("Howard University", "1982", "1986")],
    "Hillary Clinton": [("Yale University", "1969", "1973")],
}
REAL_QIDS["Yale University"] = "Q49112"
UNIVERSITIES = [("Harvard University", "United States of America", 200), ("Columbia University", "United States of America", 130),
                ("Stanford University", "United States of America", 150), ("University of Oxford", "United Kingdom", 170),
                ("Princeton University", "United States of America", 130), ("University of Pennsylvania", "United States of America", 110),
                ("Duke University", "United States of America", 90), ("University of Chicago", "United States of America", 110),
                ("Yale University", "United States of America", 140), ("Occidental College", "United States of America", 30),
                ("University of Delaware", "United States of America", 40), ("Sciences Po", "France", 60),
                ("École nationale d'administration", "France", 50), ("Leipzig University", "Germany", 80),
                ("Howard University", "United States of America", 50)]
for _u, _c, _pop in UNIVERSITIES:
    entity(_u, f"university in {_c}", _pop, ["university"])
    claim(_u, "P17", _c)
for _p, _rows in EDUCATION.items():
    spells(_p, "P69", _rows)

# =========================================================================== philosophers (BCE dates)
person("Socrates", "classical Greek philosopher", 230, M, "-0469", ["Greece"], ["philosopher"], died="-0399",
       birthplace="Athens")
person("Plato", "classical Greek philosopher", 240, M, "-0427", ["Greece"], ["philosopher"], died="-0347",
       birthplace="Athens")
person("Aristotle", "classical Greek philosopher", 250, M, "-0384", ["Greece"], ["philosopher"], died="-0322",
       birthplace="Stagira")
claim("Aristotle", "P108", "Platonic Academy", start="-0367", end="-0347")
entity("Platonic Academy", "school founded by Plato in Athens", 70, ["organization"])
claim("Platonic Academy", "P571", "-0387", "time")
claim("Platonic Academy", "P112", "Plato")
claim("Platonic Academy", "P159", "Athens")



# =========================================================================== LINK rule groundings
# Facts the bundled LINK rules ground (generators/link/rules, docs/link.md): towns that lie in
# a region of a country (towns carry P131 only, so their country is two facts away),
# inventions with their dates (P31 invention, P571), and historical figures with their dates
# of death (P570), so that "a contemporary of H could not have used C" has answers.
entity("town", "human settlement smaller than a city", 170)
entity("region", "first-level administrative division of a country", 60)
entity("invention", "novel device, method or process", 150)
REGIONS = [  # region, country, popularity
    ("Auvergne-Rhône-Alpes", "France", 120), ("Grand Est", "France", 100), ("Basilicata", "Italy", 110),
    ("Apulia", "Italy", 130), ("Andalusia", "Spain", 150), ("Catalonia", "Spain", 180),
    ("Lisbon District", "Portugal", 60), ("Overijssel", "Netherlands", 90), ("Gifu Prefecture", "Japan", 90),
    ("Bavaria", "Germany", 170), ("Rhineland-Palatinate", "Germany", 120), ("Minas Gerais", "Brazil", 120),
    ("Jalisco", "Mexico", 110), ("Tierra del Fuego Province", "Argentina", 70),
    ("North Yorkshire", "United Kingdom", 80), ("Canterbury Region", "New Zealand", 70),
    ("Western Australia", "Australia", 130), ("Alberta", "Canada", 140), ("Karnataka", "India", 130),
    ("Shanxi", "People's Republic of China", 110), ("Vladimir Oblast", "Russia", 90),
    ("Karabük Province", "Turkey", 60), ("Washington", "United States of America", 190),
    ("North Jeolla Province", "South Korea", 70),
]
TOWNS = [  # town, region, popularity
    ("Annecy", "Auvergne-Rhône-Alpes", 70), ("Colmar", "Grand Est", 60), ("Matera", "Basilicata", 80),
    ("Alberobello", "Apulia", 50), ("Ronda", "Andalusia", 60), ("Cadaqués", "Catalonia", 40),
    ("Sintra", "Lisbon District", 70), ("Giethoorn", "Overijssel", 40), ("Takayama", "Gifu Prefecture", 50),
    ("Rothenburg ob der Tauber", "Bavaria", 60), ("Cochem", "Rhineland-Palatinate", 40),
    ("Ouro Preto", "Minas Gerais", 60), ("Tequila", "Jalisco", 40), ("Ushuaia", "Tierra del Fuego Province", 70),
    ("Whitby", "North Yorkshire", 50), ("Akaroa", "Canterbury Region", 30), ("Broome", "Western Australia", 40),
    ("Banff", "Alberta", 50), ("Hampi", "Karnataka", 60), ("Pingyao", "Shanxi", 50),
    ("Suzdal", "Vladimir Oblast", 60), ("Safranbolu", "Karabük Province", 50), ("Leavenworth", "Washington", 30),
    ("Jeonju", "North Jeolla Province", 60),
]
for _region, _country, _pop in REGIONS:
    entity(_region, f"region of {_country}", _pop, ["region"])
    claim(_region, "P17", _country)
for _town, _region, _pop in TOWNS:
    entity(_town, f"town in {_region}", _pop, ["town"])
    claim(_town, "P131", _region)
INVENTIONS = [  # invention, date, popularity
    ("compound microscope", "1590", 120), ("telescope", "1608", 240), ("barometer", "1643", 110),
    ("mechanical calculator", "1642", 50), ("pendulum clock", "1656", 60), ("steam engine", "1712", 190),
    ("mercury thermometer", "1714", 60), ("lightning rod", "1752", 70), ("hot air balloon", "1783", 100),
    ("voltaic pile", "1800", 50), ("stethoscope", "1816", 90), ("bicycle", "1817", 200),
    ("sewing machine", "1846", 100), ("safety elevator", "1852", 40), ("dynamite", "1867", 110),
    ("typewriter", "1868", 120), ("telephone", "1876", 250), ("phonograph", "1877", 90),
    ("incandescent light bulb", "1879", 160), ("dishwasher", "1886", 70), ("radio", "1895", 240),
    ("escalator", "1896", 70), ("airplane", "1903", 240), ("television", "1927", 260),
    ("ballpoint pen", "1938", 100), ("microwave oven", "1945", 110), ("transistor", "1947", 150),
    ("laser", "1960", 170), ("digital camera", "1975", 90), ("World Wide Web", "1989", 200),
    ("smartphone", "1994", 170),
]
for _name, _date, _pop in INVENTIONS:
    entity(_name, "invention", _pop, ["invention"])
    claim(_name, "P571", _date, "time")
REAL_QIDS.update({"Julius Caesar": "Q1048", "Napoleon": "Q517", "Leonardo da Vinci": "Q762",
                  "William Shakespeare": "Q692", "Isaac Newton": "Q935", "Galileo Galilei": "Q307",
                  "Charles Darwin": "Q1035", "Johann Sebastian Bach": "Q1339", "Alexander the Great": "Q8409"})
HISTORICAL_FIGURES = [  # name, description, popularity, sex, born, died
    ("Hammurabi", "king of Babylon", 150, M, "-1810", "-1750"),
    ("Ramesses II", "pharaoh of ancient Egypt", 180, M, "-1303", "-1213"),
    ("Confucius", "Chinese philosopher", 240, M, "-0551", "-0479"),
    ("Alexander the Great", "king of Macedon", 270, M, "-0356", "-0323-06-11"),
    ("Ashoka", "emperor of the Maurya dynasty", 150, M, "-0304", "-0232"),
    ("Julius Caesar", "Roman general and statesman", 260, M, "-0100", "-0044-03-15"),
    ("Cleopatra", "queen of the Ptolemaic Kingdom of Egypt", 230, F, "-0069", "-0030"),
    ("Hypatia", "Greek mathematician and philosopher in Alexandria", 120, F, "0360", "0415"),
    ("Charlemagne", "king of the Franks and emperor", 230, M, "0748", "0814-01-28"),
    ("Avicenna", "Persian physician and philosopher", 170, M, "0980", "1037"),
    ("Saladin", "sultan of Egypt and Syria", 160, M, "1137", "1193"),
    ("Genghis Khan", "founder of the Mongol Empire", 230, M, "1162", "1227-08-18"),
    ("Marco Polo", "Venetian merchant and traveller", 200, M, "1254", "1324"),
    ("Mansa Musa", "ruler of the Mali Empire", 120, M, "1280", "1337"),
    ("Joan of Arc", "French heroine of the Hundred Years' War", 220, F, "1412", "1431-05-30"),
    ("Sejong the Great", "king of Joseon", 110, M, "1397", "1450"),
    ("Leonardo da Vinci", "Italian polymath of the Renaissance", 280, M, "1452-04-15", "1519-05-02"),
    ("William Shakespeare", "English playwright and poet", 290, M, "1564", "1616-04-23"),
    ("Galileo Galilei", "Italian astronomer and physicist", 260, M, "1564-02-15", "1642-01-08"),
    ("Isaac Newton", "English mathematician and physicist", 270, M, "1643-01-04", "1727-03-31"),
    ("Johann Sebastian Bach", "German composer", 230, M, "1685-03-31", "1750-07-28"),
    ("Napoleon", "French emperor and military leader", 290, M, "1769-08-15", "1821-05-05"),
    ("Charles Darwin", "English naturalist", 260, M, "1809-02-12", "1882-04-19"),
    ("Ada Lovelace", "English mathematician", 160, F, "1815-12-10", "1852-11-27"),
]
for (_n, _d, _p, _s, _b, _x) in HISTORICAL_FIGURES:
    person(_n, _d, _p, _s, _b, died=_x)


# =========================================================================== output
WIKIS = ("en de fr es it ru ja zh pt pl nl sv uk ar fa ca cs ko fi hu no id tr ro he vi da sr bg el "
         "ms sk eu hr lt sl et gl hy ka az be kk ta hi th ur bn la simple eo nn cy uz mk lv bs ga is "
         "sq af sw ml mr te kn tl gu ne si my km lo mn ky tg tt ba cv ce sah os mhr udm kv "
         "war ceb sco an ast oc br co fy lb li wa nds als bar pms lmo scn vec nap fur lij frr stq "
         "ku ckb ps sd pa or as mai bh new pi sa bo ug yi ia ie io vo nov lfn jbo "
         "ha yo ig zu xh so am ti om rw mg ny sn st tn ts ss ve wo ln kg lg ak ee tw ff bm "
         "qu ay gn nah ht jv su min ace bug bjn map-bms mad ban gor nia tet").split()


def sitelinks(label: str, popularity: int) -> dict:
    count = max(1, math.ceil(popularity * SITELINK_SCALE))
    return {f"{code.replace('-', '_')}wiki": {"site": f"{code.replace('-', '_')}wiki", "title": label}
            for code in WIKIS[:count]}


def document(key: str, data: dict) -> dict:
    doc = {"type": "item", "id": key,
           "labels": {"en": {"language": "en", "value": data["label"]}},
           "descriptions": {"en": {"language": "en", "value": data["description"]}},
           "aliases": ({"en": [{"language": "en", "value": a} for a in data["aliases"]]} if data["aliases"] else {}),
           "claims": data["claims"],
           "sitelinks": sitelinks(data["label"], data["popularity"])}
    return doc


def check() -> None:
    missing = sorted(f"{q} ({name})" for q, name in REFERENCED.items() if q not in ENTITIES)
    if missing:
        raise SystemExit("referenced but not defined: " + ", ".join(missing))
    if len(WIKIS) < max(math.ceil(d["popularity"] * SITELINK_SCALE) for d in ENTITIES.values()):
        raise SystemExit("not enough wiki codes for the largest sitelink map")


def main() -> None:
    check()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    keys = sorted(ENTITIES, key=lambda k: int(k[1:]))
    lines = [json.dumps(document(k, ENTITIES[k]), ensure_ascii=False, separators=(",", ":")) for k in keys]
    OUT.write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")
    print(f"wrote {len(lines)} entities to {OUT}")


if __name__ == "__main__":
    main()
