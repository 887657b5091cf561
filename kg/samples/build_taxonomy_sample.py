"""Write the taxonomy sample: NCBI ``nodes.dmp`` / ``names.dmp`` and EOL-style ``pages.csv`` /
``traits.csv`` under ``taxonomy/``.

Tax ids are real NCBI Taxonomy ids where the authors know them; every other taxon gets an id
from 9,900,001 upwards (NCBI ids are below 4 million, so these can never clash). EOL page ids
are all invented (990,000,001 upwards). Trait values are typical adult figures from public
references (rounded); the tree is simplified: unranked clades between the ranks shown are
left out (family -> order -> class -> phylum -> kingdom -> superkingdom -> root).

Deterministic: running it twice writes byte-identical files.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

OUT = Path(__file__).resolve().parent / "taxonomy"
SOURCE = "knowforge-sample"

# tax_id, parent name, rank, scientific name, common names, division id (NCBI divisions:
# 2 = mammals, 1 = invertebrates, 8 = unassigned), synonyms
INVENTED = iter(range(9_900_001, 9_999_999))
TAXA: list[tuple] = []
TAX_ID: dict[str, int] = {}


def taxon(name, parent, rank, tax_id=None, common=(), division=2, synonyms=()):
    tid = tax_id if tax_id is not None else next(INVENTED)
    TAX_ID[name] = tid
    TAXA.append((tid, parent, rank, name, list(common), division, list(synonyms)))


taxon("root", None, "no rank", 1, division=8)
taxon("Eukaryota", "root", "superkingdom", 2759, ["eukaryotes"], 8)
taxon("Metazoa", "Eukaryota", "kingdom", 33208, ["metazoans", "animals"], 1)
taxon("Chordata", "Metazoa", "phylum", 7711, ["chordates"], 1)
taxon("Platyhelminthes", "Metazoa", "phylum", 6157, ["flatworms"], 1)
taxon("Mammalia", "Chordata", "class", 40674, ["mammals"])
taxon("Cestoda", "Platyhelminthes", "class", 6199, ["tapeworms"], 1)
taxon("Carnivora", "Mammalia", "order", 33554, ["carnivores"])
taxon("Artiodactyla", "Mammalia", "order", 91561, ["even-toed ungulates"], synonyms=["Cetartiodactyla"])
taxon("Perissodactyla", "Mammalia", "order", 9787, ["odd-toed ungulates"])
taxon("Lagomorpha", "Mammalia", "order", 9975, ["lagomorphs"])
taxon("Cyclophyllidea", "Cestoda", "order", None, [], 1)

FAMILIES = [  # family, order, tax id, common name
    ("Felidae", "Carnivora", 9681, "cat family"), ("Canidae", "Carnivora", 9608, "dog family"),
    ("Ursidae", "Carnivora", 9632, "bears"), ("Equidae", "Perissodactyla", 9788, "horse family"),
    ("Camelidae", "Artiodactyla", 9835, "camelids"), ("Bovidae", "Artiodactyla", 9895, "bovids"),
    ("Cervidae", "Artiodactyla", 9850, "deer"), ("Suidae", "Artiodactyla", 9821, "pigs"),
    ("Leporidae", "Lagomorpha", 9979, "rabbits and hares"), ("Taeniidae", "Cyclophyllidea", None, "taeniid tapeworms"),
]
for _f, _o, _t, _c in FAMILIES:
    taxon(_f, _o, "family", _t, [_c], 1 if _f == "Taeniidae" else 2)

GENERA = [  # genus, family, tax id
    ("Panthera", "Felidae", 9688), ("Acinonyx", "Felidae", 32535), ("Puma", "Felidae", 146712),
    ("Lynx", "Felidae", None), ("Felis", "Felidae", 9682),
    ("Canis", "Canidae", 9611), ("Vulpes", "Canidae", 9625), ("Lycaon", "Canidae", None), ("Chrysocyon", "Canidae", None),
    ("Ursus", "Ursidae", 9639), ("Ailuropoda", "Ursidae", 9645), ("Tremarctos", "Ursidae", None), ("Helarctos", "Ursidae", None),
    ("Equus", "Equidae", 9789),
    ("Camelus", "Camelidae", 9836), ("Lama", "Camelidae", 9839), ("Vicugna", "Camelidae", None),
    ("Bos", "Bovidae", 9903), ("Bison", "Bovidae", 9900), ("Syncerus", "Bovidae", None), ("Ovis", "Bovidae", 9935),
    ("Capra", "Bovidae", 9922), ("Connochaetes", "Bovidae", None), ("Eudorcas", "Bovidae", None),
    ("Cervus", "Cervidae", 9859), ("Rangifer", "Cervidae", 9869), ("Alces", "Cervidae", 9851),
    ("Odocoileus", "Cervidae", None), ("Dama", "Cervidae", None), ("Capreolus", "Cervidae", None),
    ("Sus", "Suidae", 9822), ("Phacochoerus", "Suidae", None), ("Babyrousa", "Suidae", None),
    ("Oryctolagus", "Leporidae", None), ("Lepus", "Leporidae", None), ("Sylvilagus", "Leporidae", None),
    ("Echinococcus", "Taeniidae", None), ("Taenia", "Taeniidae", None),
]
for _g, _f, _t in GENERA:
    taxon(_g, _f, "genus", _t, division=1 if _f == "Taeniidae" else 2)

# species: scientific name, tax id, common name, body mass (kg), life span (years),
# gestation (days, None for egg-laying parasites), shoulder height (cm, None = n/a),
# diet, habitat, first appearance, conservation status, distribution
SPECIES = [
    ("Panthera leo", 9689, "lion", 190, 14, 110, 120, "carnivore", "savanna", "middle Pleistocene", "Vulnerable", "sub-Saharan Africa and western India"),
    ("Panthera tigris", 9694, "tiger", 220, 15, 104, 100, "carnivore", "tropical and temperate forest", "early Pleistocene", "Endangered", "South, Southeast and East Asia"),
    ("Panthera pardus", 9691, "leopard", 60, 15, 96, 70, "carnivore", "woodland and forest", "early Pleistocene", "Vulnerable", "Africa and Asia"),
    ("Panthera onca", 9690, "jaguar", 95, 14, 100, 75, "carnivore", "tropical rainforest", "early Pleistocene", "Near Threatened", "Central and South America"),
    ("Panthera uncia", 29064, "snow leopard", 45, 16, 95, 60, "carnivore", "alpine mountains", "middle Pleistocene", "Vulnerable", "mountains of Central and South Asia"),
    ("Acinonyx jubatus", 32536, "cheetah", 50, 12, 93, 80, "carnivore", "savanna", "late Pliocene", "Vulnerable", "Africa and Iran"),
    ("Puma concolor", 9696, "cougar", 62, 13, 91, 70, "carnivore", "mountain forest", "early Pleistocene", "Least Concern", "the Americas"),
    ("Lynx lynx", None, "Eurasian lynx", 22, 17, 70, 65, "carnivore", "boreal and temperate forest", "early Pleistocene", "Least Concern", "Europe and northern Asia"),
    ("Felis catus", 9685, "domestic cat", 4.5, 15, 65, 25, "carnivore", "human settlements", "Holocene", "Domesticated", "worldwide"),
    ("Canis lupus", 9612, "gray wolf", 40, 13, 63, 80, "carnivore", "forest and tundra", "middle Pleistocene", "Least Concern", "Northern Hemisphere"),
    ("Canis latrans", 9614, "coyote", 13, 12, 63, 60, "omnivore", "grassland and desert", "middle Pleistocene", "Least Concern", "North and Central America"),
    ("Canis aureus", None, "golden jackal", 10, 12, 63, 45, "omnivore", "scrubland and grassland", "late Pleistocene", "Least Concern", "southeastern Europe and South Asia"),
    ("Vulpes vulpes", 9627, "red fox", 6, 5, 52, 40, "omnivore", "forest edge and farmland", "middle Pleistocene", "Least Concern", "Northern Hemisphere and Australia"),
    ("Vulpes lagopus", 494514, "arctic fox", 3.5, 4, 52, 28, "carnivore", "tundra", "middle Pleistocene", "Least Concern", "Arctic"),
    ("Lycaon pictus", 9622, "African wild dog", 25, 11, 70, 70, "carnivore", "savanna", "middle Pleistocene", "Endangered", "sub-Saharan Africa"),
    ("Chrysocyon brachyurus", 68728, "maned wolf", 23, 15, 65, 90, "omnivore", "grassland and scrub (cerrado)", "late Pleistocene", "Near Threatened", "central South America"),
    ("Ursus arctos", 9644, "brown bear", 300, 25, 220, 120, "omnivore", "forest and mountains", "middle Pleistocene", "Least Concern", "northern Eurasia and North America"),
    ("Ursus maritimus", 29073, "polar bear", 450, 25, 240, 140, "carnivore", "sea ice", "late Pleistocene", "Vulnerable", "Arctic"),
    ("Ursus americanus", 9643, "American black bear", 120, 20, 220, 90, "omnivore", "temperate forest", "early Pleistocene", "Least Concern", "North America"),
    ("Ursus thibetanus", 9642, "Asian black bear", 110, 25, 210, 85, "omnivore", "mountain forest", "early Pleistocene", "Vulnerable", "South and East Asia"),
    ("Ailuropoda melanoleuca", 9646, "giant panda", 100, 20, 135, 75, "herbivore", "montane bamboo forest", "early Pleistocene", "Vulnerable", "central China"),
    ("Tremarctos ornatus", 9638, "spectacled bear", 125, 25, 220, 80, "omnivore", "Andean cloud forest", "late Pleistocene", "Vulnerable", "Andes of South America"),
    ("Helarctos malayanus", 9634, "sun bear", 50, 24, 100, 70, "omnivore", "tropical rainforest", "middle Pleistocene", "Vulnerable", "Southeast Asia"),
    ("Equus caballus", 9796, "horse", 500, 27, 340, 160, "herbivore", "grassland", "Holocene", "Domesticated", "worldwide"),
    ("Equus asinus", 9793, "donkey", 250, 30, 365, 120, "herbivore", "arid scrubland", "Holocene", "Domesticated", "worldwide"),
    ("Equus quagga", None, "plains zebra", 300, 25, 370, 130, "herbivore", "savanna", "middle Pleistocene", "Near Threatened", "eastern and southern Africa"),
    ("Equus grevyi", 9792, "Grévy's zebra", 400, 22, 390, 150, "herbivore", "semi-arid grassland", "middle Pleistocene", "Endangered", "Kenya and Ethiopia"),
    ("Equus zebra", None, "mountain zebra", 300, 25, 365, 130, "herbivore", "mountain grassland", "middle Pleistocene", "Vulnerable", "south-western Africa"),
    ("Equus hemionus", 9794, "onager", 230, 20, 340, 125, "herbivore", "desert and semi-desert", "middle Pleistocene", "Near Threatened", "Central Asia and Iran"),
    ("Equus przewalskii", 9798, "Przewalski's horse", 300, 20, 340, 130, "herbivore", "steppe", "late Pleistocene", "Endangered", "Mongolia and China"),
    ("Camelus dromedarius", 9838, "dromedary", 500, 40, 390, 190, "herbivore", "hot desert", "Holocene", "Domesticated", "North Africa, the Middle East and Australia"),
    ("Camelus bactrianus", 9837, "Bactrian camel", 600, 40, 400, 190, "herbivore", "cold desert and steppe", "Holocene", "Domesticated", "Central Asia"),
    ("Camelus ferus", 419612, "wild Bactrian camel", 550, 40, 400, 180, "herbivore", "desert", "middle Pleistocene", "Critically Endangered", "Gobi and Taklamakan deserts"),
    ("Lama glama", 9844, "llama", 150, 20, 350, 110, "herbivore", "montane grassland", "Holocene", "Domesticated", "Andes of South America"),
    ("Lama guanicoe", 9840, "guanaco", 120, 20, 345, 110, "herbivore", "grassland and steppe", "middle Pleistocene", "Least Concern", "western and southern South America"),
    ("Vicugna pacos", 30538, "alpaca", 60, 20, 345, 90, "herbivore", "puna grassland", "Holocene", "Domesticated", "Andes of South America"),
    ("Vicugna vicugna", 9843, "vicuña", 50, 20, 330, 90, "herbivore", "puna grassland", "middle Pleistocene", "Least Concern", "central Andes"),
    ("Bos taurus", 9913, "cattle", 700, 20, 283, 140, "herbivore", "grassland", "Holocene", "Domesticated", "worldwide"),
    ("Bison bison", 9901, "American bison", 700, 20, 285, 170, "herbivore", "prairie", "late Pleistocene", "Near Threatened", "North America"),
    ("Syncerus caffer", 9970, "African buffalo", 600, 22, 340, 150, "herbivore", "savanna", "middle Pleistocene", "Near Threatened", "sub-Saharan Africa"),
    ("Ovis aries", 9940, "sheep", 70, 12, 150, 80, "herbivore", "grassland", "Holocene", "Domesticated", "worldwide"),
    ("Capra hircus", 9925, "goat", 55, 16, 150, 70, "herbivore", "mountains and scrubland", "Holocene", "Domesticated", "worldwide"),
    ("Connochaetes taurinus", None, "blue wildebeest", 230, 20, 255, 130, "herbivore", "savanna", "early Pleistocene", "Least Concern", "eastern and southern Africa"),
    ("Eudorcas thomsonii", None, "Thomson's gazelle", 25, 12, 165, 62, "herbivore", "short-grass savanna", "middle Pleistocene", "Near Threatened", "East Africa"),
    ("Cervus elaphus", 9860, "red deer", 160, 16, 235, 120, "herbivore", "temperate forest", "middle Pleistocene", "Least Concern", "Europe and western Asia"),
    ("Rangifer tarandus", 9870, "reindeer", 120, 15, 225, 110, "herbivore", "tundra and taiga", "middle Pleistocene", "Vulnerable", "Arctic and subarctic"),
    ("Alces alces", 9852, "moose", 450, 16, 235, 190, "herbivore", "boreal forest", "late Pleistocene", "Least Concern", "northern Eurasia and North America"),
    ("Odocoileus virginianus", 9874, "white-tailed deer", 70, 10, 200, 90, "herbivore", "forest edge", "early Pleistocene", "Least Concern", "the Americas"),
    ("Dama dama", 30532, "fallow deer", 60, 16, 230, 85, "herbivore", "woodland", "middle Pleistocene", "Least Concern", "Europe and Anatolia"),
    ("Capreolus capreolus", 9858, "roe deer", 25, 12, 290, 70, "herbivore", "woodland and farmland", "middle Pleistocene", "Least Concern", "Europe and Anatolia"),
    ("Sus scrofa", 9823, "wild boar", 90, 12, 115, 80, "omnivore", "broadleaf forest", "early Pleistocene", "Least Concern", "Eurasia and North Africa"),
    ("Phacochoerus africanus", None, "common warthog", 75, 15, 170, 70, "herbivore", "savanna", "middle Pleistocene", "Least Concern", "sub-Saharan Africa"),
    ("Sus barbatus", None, "bearded pig", 100, 16, 120, 80, "omnivore", "tropical rainforest", "middle Pleistocene", "Vulnerable", "Borneo, Sumatra and the Malay Peninsula"),
    ("Babyrousa celebensis", None, "North Sulawesi babirusa", 80, 20, 158, 75, "omnivore", "tropical rainforest", "late Pleistocene", "Vulnerable", "Sulawesi"),
    ("Oryctolagus cuniculus", 9986, "European rabbit", 2, 9, 30, None, "herbivore", "grassland and scrub", "middle Pleistocene", "Endangered", "Iberia, introduced worldwide"),
    ("Lepus europaeus", 9983, "European hare", 4, 12, 42, None, "herbivore", "open farmland", "late Pleistocene", "Least Concern", "Europe and western Asia"),
    ("Lepus americanus", None, "snowshoe hare", 1.4, 5, 37, None, "herbivore", "boreal forest", "late Pleistocene", "Least Concern", "northern North America"),
    ("Sylvilagus floridanus", None, "eastern cottontail", 1.2, 3, 28, None, "herbivore", "meadow and shrubland", "late Pleistocene", "Least Concern", "the Americas"),
    ("Echinococcus granulosus", 6210, "dog tapeworm", 0.000001, 2, None, None, "parasite (absorbs nutrients)", "small intestine of canids", "unknown (no fossil record)", "Not Evaluated", "worldwide"),
    ("Echinococcus multilocularis", 6211, "fox tapeworm", 0.000001, 1, None, None, "parasite (absorbs nutrients)", "small intestine of foxes", "unknown (no fossil record)", "Not Evaluated", "Northern Hemisphere"),
    ("Taenia saginata", 6206, "beef tapeworm", 0.005, 25, None, None, "parasite (absorbs nutrients)", "human small intestine", "unknown (no fossil record)", "Not Evaluated", "worldwide"),
    ("Taenia solium", 6204, "pork tapeworm", 0.002, 25, None, None, "parasite (absorbs nutrients)", "human small intestine", "unknown (no fossil record)", "Not Evaluated", "worldwide"),
]
BODY_LENGTH_MM = {"Echinococcus granulosus": 6, "Echinococcus multilocularis": 3, "Taenia saginata": 5000,
                  "Taenia solium": 3000}
for _row in SPECIES:
    _name, _tid, _common = _row[:3]
    taxon(_name, _name.split()[0], "species", _tid, [_common],
          1 if _name in BODY_LENGTH_MM else 2)

# food web: (subject, predicate, object); inverse records are added below
RELATIONS = [
    ("Panthera leo", "preys on", ["Equus quagga", "Connochaetes taurinus", "Syncerus caffer", "Phacochoerus africanus", "Equus grevyi"]),
    ("Panthera leo", "competes with", ["Lycaon pictus", "Acinonyx jubatus", "Panthera pardus"]),
    ("Panthera tigris", "preys on", ["Sus scrofa", "Cervus elaphus", "Bos taurus", "Ursus thibetanus", "Helarctos malayanus"]),
    ("Panthera tigris", "competes with", ["Panthera pardus", "Ursus arctos", "Canis lupus"]),
    ("Panthera pardus", "preys on", ["Eudorcas thomsonii", "Phacochoerus africanus", "Capra hircus", "Helarctos malayanus"]),
    ("Panthera pardus", "competes with", ["Acinonyx jubatus", "Lycaon pictus"]),
    ("Panthera onca", "preys on", ["Odocoileus virginianus", "Bos taurus", "Chrysocyon brachyurus"]),
    ("Panthera onca", "competes with", ["Puma concolor"]),
    ("Panthera uncia", "preys on", ["Capra hircus", "Ovis aries"]),
    ("Panthera uncia", "competes with", ["Canis lupus"]),
    ("Acinonyx jubatus", "preys on", ["Eudorcas thomsonii", "Phacochoerus africanus", "Connochaetes taurinus"]),
    ("Acinonyx jubatus", "competes with", ["Lycaon pictus"]),
    ("Puma concolor", "preys on", ["Odocoileus virginianus", "Lama guanicoe", "Vicugna vicugna", "Lama glama", "Vicugna pacos", "Chrysocyon brachyurus"]),
    ("Puma concolor", "competes with", ["Canis lupus", "Ursus americanus", "Tremarctos ornatus"]),
    ("Lynx lynx", "preys on", ["Capreolus capreolus", "Lepus europaeus", "Rangifer tarandus"]),
    ("Lynx lynx", "competes with", ["Canis lupus", "Vulpes vulpes"]),
    ("Felis catus", "preys on", ["Oryctolagus cuniculus", "Sylvilagus floridanus"]),
    ("Felis catus", "competes with", ["Vulpes vulpes"]),
    ("Canis lupus", "preys on", ["Alces alces", "Cervus elaphus", "Rangifer tarandus", "Bison bison", "Odocoileus virginianus", "Ovis aries", "Equus przewalskii", "Equus hemionus", "Camelus bactrianus"]),
    ("Canis lupus", "competes with", ["Ursus arctos", "Canis latrans"]),
    ("Canis latrans", "preys on", ["Sylvilagus floridanus", "Lepus americanus", "Odocoileus virginianus"]),
    ("Canis latrans", "competes with", ["Vulpes vulpes"]),
    ("Canis aureus", "preys on", ["Lepus europaeus", "Capra hircus"]),
    ("Canis aureus", "competes with", ["Vulpes vulpes"]),
    ("Vulpes vulpes", "preys on", ["Oryctolagus cuniculus", "Lepus europaeus"]),
    ("Vulpes vulpes", "competes with", ["Vulpes lagopus"]),
    ("Vulpes lagopus", "eats", ["Rangifer tarandus"]),
    ("Vulpes lagopus", "competes with", ["Ursus maritimus"]),
    ("Lycaon pictus", "preys on", ["Eudorcas thomsonii", "Connochaetes taurinus", "Equus quagga"]),
    ("Chrysocyon brachyurus", "preys on", ["Sylvilagus floridanus"]),
    ("Chrysocyon brachyurus", "competes with", ["Canis latrans"]),
    ("Ursus arctos", "eats", ["Alces alces", "Cervus elaphus", "Rangifer tarandus", "Bison bison"]),
    ("Ursus arctos", "competes with", ["Ursus americanus", "Ursus maritimus"]),
    ("Ursus maritimus", "eats", ["Rangifer tarandus"]),
    ("Ursus americanus", "eats", ["Odocoileus virginianus", "Alces alces"]),
    ("Ursus thibetanus", "competes with", ["Ursus arctos", "Helarctos malayanus", "Ailuropoda melanoleuca"]),
    ("Panthera pardus", "eats", ["Ailuropoda melanoleuca"]),
    ("Tremarctos ornatus", "eats", ["Bos taurus", "Lama glama"]),
    ("Helarctos malayanus", "competes with", ["Sus barbatus"]),
    ("Equus quagga", "competes with", ["Connochaetes taurinus", "Syncerus caffer"]),
    ("Equus grevyi", "competes with", ["Bos taurus", "Equus quagga"]),
    ("Equus zebra", "competes with", ["Ovis aries", "Capra hircus"]),
    ("Panthera leo", "preys on", ["Equus zebra"]),
    ("Equus hemionus", "competes with", ["Camelus bactrianus", "Ovis aries"]),
    ("Equus przewalskii", "competes with", ["Bos taurus", "Equus caballus"]),
    ("Equus caballus", "competes with", ["Bos taurus"]),
    ("Equus asinus", "competes with", ["Capra hircus"]),
    ("Canis lupus", "preys on", ["Equus caballus", "Equus asinus"]),
    ("Camelus dromedarius", "competes with", ["Capra hircus", "Equus asinus"]),
    ("Panthera leo", "preys on", ["Camelus dromedarius"]),
    ("Camelus ferus", "competes with", ["Camelus bactrianus", "Equus hemionus"]),
    ("Lama glama", "competes with", ["Ovis aries"]),
    ("Lama guanicoe", "competes with", ["Ovis aries", "Bos taurus"]),
    ("Vicugna pacos", "competes with", ["Ovis aries"]),
    ("Vicugna vicugna", "competes with", ["Vicugna pacos", "Ovis aries"]),
    ("Bison bison", "competes with", ["Bos taurus", "Equus caballus"]),
    ("Syncerus caffer", "competes with", ["Connochaetes taurinus"]),
    ("Ovis aries", "competes with", ["Capra hircus"]),
    ("Eudorcas thomsonii", "competes with", ["Connochaetes taurinus"]),
    ("Cervus elaphus", "competes with", ["Capreolus capreolus", "Sus scrofa", "Dama dama"]),
    ("Rangifer tarandus", "competes with", ["Alces alces"]),
    ("Alces alces", "competes with", ["Odocoileus virginianus"]),
    ("Dama dama", "competes with", ["Capreolus capreolus", "Ovis aries"]),
    ("Odocoileus virginianus", "competes with", ["Bos taurus"]),
    ("Sus scrofa", "competes with", ["Capreolus capreolus"]),
    ("Phacochoerus africanus", "competes with", ["Equus quagga", "Eudorcas thomsonii"]),
    ("Sus barbatus", "competes with", ["Babyrousa celebensis"]),
    ("Babyrousa celebensis", "competes with", ["Sus scrofa"]),
    ("Panthera tigris", "preys on", ["Sus barbatus"]),
    ("Oryctolagus cuniculus", "competes with", ["Ovis aries", "Lepus europaeus"]),
    ("Lepus europaeus", "competes with", ["Capreolus capreolus"]),
    ("Lepus americanus", "competes with", ["Alces alces", "Sylvilagus floridanus"]),
    ("Sylvilagus floridanus", "competes with", ["Odocoileus virginianus"]),
    ("Lynx lynx", "preys on", ["Lepus americanus"]),
    ("Echinococcus granulosus", "parasitizes", ["Canis lupus", "Ovis aries", "Capra hircus", "Camelus dromedarius", "Bos taurus"]),
    ("Echinococcus multilocularis", "parasitizes", ["Vulpes vulpes", "Vulpes lagopus", "Canis latrans", "Canis lupus"]),
    ("Taenia saginata", "parasitizes", ["Bos taurus"]),
    ("Taenia solium", "parasitizes", ["Sus scrofa"]),
    ("Echinococcus granulosus", "competes with", ["Taenia solium"]),
    ("Taenia saginata", "competes with", ["Taenia solium"]),
    ("Echinococcus multilocularis", "competes with", ["Echinococcus granulosus"]),
]
INVERSE = {"preys on": "is eaten by", "eats": "is eaten by", "is eaten by": "eats",
           "parasitizes": "is parasitized by", "competes with": "competes with"}


def dmp_line(fields) -> str:
    return "\t|\t".join(str(f) for f in fields) + "\t|\n"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    names = {t[3] for t in TAXA}
    nodes, name_lines = [], []
    for tid, parent, rank, name, common, division, synonyms in TAXA:
        parent_id = TAX_ID[parent] if parent else 1
        # tax_id, parent, rank, embl code, division, inherited div, genetic code, inherited GC,
        # mito code, inherited MGC, GenBank hidden, hidden subtree root, comments
        mito = 9 if division == 1 else 2
        nodes.append(dmp_line([tid, parent_id, rank, "", division, 0 if rank in ("class", "phylum") else 1,
                               1, 1, mito, 1, 0, 0, ""]))
        name_lines.append(dmp_line([tid, name, "", "scientific name"]))
        for i, c in enumerate(common):
            name_lines.append(dmp_line([tid, c, "", "genbank common name" if i == 0 else "common name"]))
        for s in synonyms:
            name_lines.append(dmp_line([tid, s, "", "synonym"]))
    (OUT / "nodes.dmp").write_text("".join(nodes), encoding="utf-8")
    (OUT / "names.dmp").write_text("".join(name_lines), encoding="utf-8")

    page_of = {}
    pages = io.StringIO()
    writer = csv.writer(pages, lineterminator="\n")
    writer.writerow(["page_id", "canonical_name", "rank", "ncbi_tax_id"])
    for n, (tid, parent, rank, name, common, division, synonyms) in enumerate(TAXA[1:], start=1):
        page_of[name] = 990_000_000 + n
        writer.writerow([page_of[name], name, rank, tid])
    (OUT / "pages.csv").write_text(pages.getvalue(), encoding="utf-8")

    traits = io.StringIO()
    writer = csv.writer(traits, lineterminator="\n")
    writer.writerow(["eol_pk", "page_id", "scientific_name", "predicate", "object_page_id", "value_uri",
                     "measurement", "units", "literal", "source"])
    rows = []
    for (name, _tid, _common, mass, life, gestation, height, diet, habitat, first, status, where) in SPECIES:
        page = page_of[name]
        rows.append([page, name, "body mass", "", "", f"{mass:g}", "kg", "", SOURCE])
        rows.append([page, name, "life span", "", "", f"{life:g}", "years", "", SOURCE])
        if gestation:
            rows.append([page, name, "gestation period", "", "", f"{gestation:g}", "days", "", SOURCE])
        if height:
            rows.append([page, name, "height", "", "", f"{height:g}", "cm", "", SOURCE])
        if name in BODY_LENGTH_MM:
            rows.append([page, name, "body length", "", "", f"{BODY_LENGTH_MM[name]:g}", "mm", "", SOURCE])
        rows.append([page, name, "diet", "", "", "", "", diet, SOURCE])
        rows.append([page, name, "habitat", "", "", "", "", habitat, SOURCE])
        rows.append([page, name, "first appearance", "", "", "", "", first, SOURCE])
        rows.append([page, name, "conservation status", "", "", "", "", status, SOURCE])
        rows.append([page, name, "geographic distribution", "", "", "", "", where, SOURCE])
    seen = set()
    for subject, predicate, objects in RELATIONS:
        for obj in objects:
            for s, p, o in ((subject, predicate, obj), (obj, INVERSE[predicate], subject)):
                if (s, p, o) in seen:
                    continue
                seen.add((s, p, o))
                if s not in names or o not in names:
                    raise SystemExit(f"unknown taxon in relation: {s} {p} {o}")
                rows.append([page_of[s], s, p, page_of[o], "", "", "", "", SOURCE])
    rows.sort(key=lambda r: (r[0], r[2], str(r[3])))
    for i, row in enumerate(rows, start=1):
        writer.writerow([f"R990-PK{i:06d}"] + row)
    (OUT / "traits.csv").write_text(traits.getvalue(), encoding="utf-8")
    print(f"wrote {len(TAXA)} taxa, {len(rows)} trait records to {OUT}")


if __name__ == "__main__":
    main()
