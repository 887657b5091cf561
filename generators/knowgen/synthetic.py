"""A synthetic taxonomy modelled exactly like the taxonomy loader's output, for tests, the
scale benchmark and offline demos: ``ncbi:<id>`` Taxon entities with ``rank``/``parent_id``, a
``P171`` (parent taxon) fact to the parent, EOL-style trait facts (``body_mass`` kg,
``life_span`` years, ``gestation_period`` days, ``diet``, ``habitat``, ``first_appearance``)
and food-web relation facts (``eats``, ``is_eaten_by``, ``preys_on``, ``competes_with``,
``parasitizes``) that cross genera and families. Names are invented syllable strings."""

from __future__ import annotations

import random

from knowforge.kg.records import EntityRecord, FactRecord
from knowforge.kg.store import Store
from knowforge.kg.writer import write_entities, write_facts

_ONSETS = ("b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br",
           "cr", "gl", "pl", "tr", "st", "qu", "ch")
_NUCLEI = ("a", "e", "i", "o", "u", "ae", "io")
_CODAS = ("", "", "", "n", "r", "s", "x", "l")
DIETS = ("herbivore", "carnivore", "omnivore", "insectivore", "leaves", "grasses", "seeds", "fruit")
HABITATS = ("desert", "grassland", "forest", "tundra", "wetland", "savanna", "mountains", "coast")
EPOCHS = ("early Pleistocene", "middle Pleistocene", "late Pleistocene", "Pliocene", "Miocene",
          "Holocene")
FOOD_WEB = (("eats", "eats"), ("is_eaten_by", "is eaten by"), ("preys_on", "preys on"),
            ("competes_with", "competes with"), ("parasitizes", "parasitizes"))
TRAITS_SOURCE = "eol"


def _word(rng: random.Random, syllables: int) -> str:
    return "".join(rng.choice(_ONSETS) + rng.choice(_NUCLEI) + rng.choice(_CODAS)
                   for _ in range(syllables))


def synthetic_taxonomy(n_species: int, *, seed: int = 0, species_per_genus: int = 8,
                       genera_per_family: int = 6, relations_per_species: int = 3):
    """(entities, facts) of a taxonomy with ``n_species`` species (deterministic in ``seed``)."""
    rng = random.Random(f"{seed}:synthetic-taxonomy")
    entities: list[EntityRecord] = []
    facts: list[FactRecord] = []
    next_id = iter(range(100000, 10**9))
    used_names: set[str] = set()

    def new_name(syl: int) -> str:
        while True:
            w = _word(rng, syl)
            if w not in used_names and len(w) >= 4:
                used_names.add(w)
                return w

    def taxon(tax_id: int, name: str, rank: str, parent: int | None, aliases=()) -> None:
        entities.append(EntityRecord(
            id=f"ncbi:{tax_id}", name=name, labels=("Taxon",), aliases=tuple(aliases),
            domain="biology", source="ncbi", extra={"rank": rank, "parent_id":
                                                     f"ncbi:{parent}" if parent else None} if parent
            else {"rank": rank}))
        if parent is not None:
            facts.append(FactRecord(subject_id=f"ncbi:{tax_id}", relation="P171", source="ncbi",
                                    object_id=f"ncbi:{parent}", relation_label="parent taxon"))

    root = next(next_id)
    taxon(root, "Synthetica", "order", None)
    species: list[str] = []
    n_genera = max(1, -(-n_species // species_per_genus))
    family = None
    for g in range(n_genera):
        if g % genera_per_family == 0:
            family = next(next_id)
            taxon(family, new_name(3).capitalize() + "idae", "family", root)
        genus = next(next_id)
        genus_name = new_name(2).capitalize()
        taxon(genus, genus_name, "genus", family)
        for _ in range(min(species_per_genus, n_species - len(species))):
            sp = next(next_id)
            epithet = new_name(rng.choice((2, 3)))
            aliases = (new_name(2).capitalize(),) if rng.random() < 0.5 else ()
            taxon(sp, f"{genus_name} {epithet}", "species", genus, aliases)
            species.append(f"ncbi:{sp}")
    for sid in species:
        mass = round(rng.lognormvariate(2.5, 1.5), 2)
        for relation, label, value, num, unit in (
                ("body_mass", "body mass", f"{mass:g}", mass, "kg"),
                ("life_span", "life span", None, round(rng.uniform(2, 60), 1), "years"),
                ("gestation_period", "gestation period", None, float(rng.randint(20, 400)), "days")):
            if rng.random() < 0.85:
                facts.append(FactRecord(subject_id=sid, relation=relation, source=TRAITS_SOURCE,
                                        value=value or f"{num:g}", value_num=num, unit=unit,
                                        datatype="quantity", relation_label=label))
        for relation, label, pool in (("diet", "diet", DIETS), ("habitat", "habitat", HABITATS),
                                      ("first_appearance", "first appearance", EPOCHS)):
            if rng.random() < 0.8:
                facts.append(FactRecord(subject_id=sid, relation=relation, source=TRAITS_SOURCE,
                                        value=rng.choice(pool), datatype="string",
                                        relation_label=label))
        for _ in range(rng.randint(1, relations_per_species)):
            relation, label = rng.choice(FOOD_WEB)
            obj = rng.choice(species)
            if obj != sid:
                facts.append(FactRecord(subject_id=sid, relation=relation, source=TRAITS_SOURCE,
                                        object_id=obj, relation_label=label))
    # one fact per (subject, relation, object/value): the stable id would merge duplicates anyway
    unique = {f.id: f for f in facts}
    return entities, list(unique.values())


def write_taxonomy(store: Store, entities, facts) -> None:
    write_entities(store, entities)
    write_facts(store, facts)

