"""Write the invented UMLS sample: ``umls/<release>/META/{MRCONSO,MRREL,MRSTY}.RRF`` for the
releases 2020AA-2024AA.

UMLS content is licensed, so nothing here is real: every CUI is C9xxxxxx, every name ends
in "(invented)", the source abbreviation is KFSAMPLE. Only the file formats and the
relation vocabulary (the 12 ChroKnowBench RELAs and their UMLS inverses) are real.

MRREL direction follows the UMLS documentation: REL/RELA is the relationship of the SECOND
concept to the FIRST, so the row ``C1|..|RO|C2|..|may_treat|..`` states (C2, may_treat, C1).
Every fact is written twice, as real MRREL does: once for the relation and once for its
inverse.

Deterministic: running it twice writes byte-identical files.
"""
from __future__ import annotations

from pathlib import Path

OUT = Path(__file__).resolve().parent / "umls"
YEARS = (2020, 2021, 2022, 2023, 2024)
ALL = YEARS
SAB = "KFSAMPLE"


def span(first: int, last: int = 2024) -> tuple[int, ...]:
    return tuple(y for y in YEARS if first <= y <= last)


SEMANTIC_TYPES = {  # TUI: (STN, STY)
    "T121": ("A1.4.1.1.1", "Pharmacologic Substance"), "T129": ("A1.4.1.1.3", "Immunologic Factor"),
    "T047": ("B2.2.1.2.1", "Disease or Syndrome"), "T037": ("B2.3", "Injury or Poisoning"),
    "T007": ("A1.1.2", "Bacterium"), "T005": ("A1.1.4", "Virus"),
    "T023": ("A1.2.3.1", "Body Part, Organ, or Organ Component"),
    "T061": ("B1.3.1.3", "Therapeutic or Preventive Procedure"),
    "T044": ("B2.2.1.1.4", "Molecular Function"), "T039": ("B2.2.1.1", "Physiologic Function"),
    "T046": ("B2.2.1.2", "Pathologic Function"), "T185": ("A2.4", "Classification"),
}

# CUI, TUI, preferred name per release span [(years, name)], synonyms, years the concept exists
CONCEPTS = [
    ("C9000001", "T121", [(ALL, "Examplomycin (invented)")], ["Examplomycin hydrochloride (invented)"], ALL),
    ("C9000002", "T121", [(ALL, "Fictivastatin (invented)")], ["Fictivastatin calcium (invented)"], ALL),
    ("C9000003", "T121", [(ALL, "Placebozide (invented)")], [], ALL),
    ("C9000004", "T121", [(ALL, "Mockiprazole (invented)")], ["Mockiprazole magnesium (invented)"], ALL),
    ("C9000005", "T121", [(ALL, "Samplovir (invented)")], [], ALL),
    ("C9000006", "T129", [(span(2022), "Testosumab (invented)")], ["Anti-grommet monoclonal antibody (invented)"], span(2022)),
    ("C9000007", "T129", [(ALL, "Demoferon alfa (invented)")], ["Demoferon (invented)"], ALL),
    ("C9000008", "T121", [(ALL, "Imaginol (invented)")], [], ALL),
    ("C9000009", "T121", [(ALL, "Fabulocaine (invented)")], [], ALL),
    ("C9000010", "T129", [(ALL, "Pseudoflu vaccine (invented)")], ["Mock influenza vaccine (invented)"], ALL),
    ("C9000011", "T047", [(ALL, "Zorbian fever (invented)")], [], ALL),
    ("C9000012", "T047", [(ALL, "Quillon pneumonia (invented)")], [], ALL),
    ("C9000013", "T047", [(ALL, "Varnish hypercholesterolemia (invented)")], ["Varnish hypercholesterolaemia (invented)"], ALL),
    ("C9000014", "T047", [(span(2020, 2022), "Mockflu (invented)"), (span(2023), "Mock influenza (invented)")],
     ["Mockflu (invented)"], ALL),
    ("C9000015", "T047", [(ALL, "Tarnel gastric ulcer (invented)")], [], ALL),
    ("C9000016", "T047", [(ALL, "Blenkin hepatitis (invented)")], [], ALL),
    ("C9000017", "T047", [(ALL, "Prill dermatitis (invented)")], [], ALL),
    ("C9000018", "T047", [(ALL, "Grommet arthritis (invented)")], [], ALL),
    ("C9000019", "T047", [(ALL, "Snarlock migraine (invented)")], [], ALL),
    ("C9000020", "T037", [(span(2024), "Drabble syndrome (invented)")], [], span(2024)),
    ("C9000021", "T047", [(ALL, "Fictive hypertension (invented)")], [], ALL),
    ("C9000022", "T047", [(ALL, "Mock hypokalemia (invented)")], ["Mock hypokalaemia (invented)"], ALL),
    ("C9000023", "T047", [(ALL, "Fictive myocardial infarction (invented)")], [], ALL),
    ("C9000024", "T047", [(ALL, "Fictive reflux disease (invented)")], [], ALL),
    ("C9000025", "T007", [(ALL, "Examplococcus aureus (invented)")], [], ALL),
    ("C9000026", "T005", [(ALL, "Fictivirus zorbiae (invented)")], [], ALL),
    ("C9000027", "T007", [(ALL, "Mockobacter pylorii (invented)")], [], ALL),
    ("C9000028", "T005", [(ALL, "Samplovirus hepatis (invented)")], [], ALL),
    ("C9000029", "T005", [(ALL, "Mockflu virus (invented)")], [], ALL),
    ("C9000030", "T023", [(ALL, "Quillon lobe (invented)")], [], ALL),
    ("C9000031", "T023", [(ALL, "Tarnel antrum (invented)")], [], ALL),
    ("C9000032", "T023", [(ALL, "Blenkin duct (invented)")], [], ALL),
    ("C9000033", "T023", [(ALL, "Grommet joint (invented)")], [], ALL),
    ("C9000034", "T061", [(ALL, "Quillon lobectomy (invented)")], [], ALL),
    ("C9000035", "T061", [(ALL, "Tarnel antrectomy (invented)")], [], ALL),
    ("C9000036", "T061", [(span(2021), "Blenkin duct stenting (invented)")], [], span(2021)),
    ("C9000037", "T061", [(ALL, "Grommet arthroscopy (invented)")], [], ALL),
    ("C9000038", "T061", [(span(2023), "Grommet joint replacement (invented)")], [], span(2023)),
    ("C9000039", "T044", [(ALL, "Zorb receptor antagonism (invented)")], [], ALL),
    ("C9000040", "T044", [(ALL, "Mock reductase inhibition (invented)")], ["Mock-CoA reductase inhibition (invented)"], ALL),
    ("C9000041", "T044", [(ALL, "Fictive protease inhibition (invented)")], [], ALL),
    ("C9000042", "T044", [(ALL, "Sample sodium channel blockade (invented)")], [], ALL),
    ("C9000043", "T044", [(ALL, "Mock proton pump inhibition (invented)")], [], ALL),
    ("C9000044", "T039", [(ALL, "Decreased fictive lipid level (invented)")], [], ALL),
    ("C9000045", "T039", [(ALL, "Increased mock diuresis (invented)")], [], ALL),
    ("C9000046", "T039", [(ALL, "Decreased sample acid secretion (invented)")], [], ALL),
    ("C9000047", "T039", [(ALL, "Mock local anesthesia (invented)")], [], ALL),
    ("C9000048", "T185", [(ALL, "Invented antibacterial agent")], [], ALL),
    ("C9000049", "T185", [(ALL, "Invented HMG-like reductase inhibitor class")], ["Invented statin"], ALL),
    ("C9000050", "T185", [(ALL, "Invented antiviral agent")], [], ALL),
    ("C9000051", "T185", [(span(2022), "Invented immunomodulator")], [], span(2022)),
    ("C9000052", "T185", [(ALL, "Invented respiratory infection")], [], ALL),
    ("C9000053", "T185", [(span(2020, 2021), "Invented tropical disease")], [], span(2020, 2021)),
    ("C9000054", "T185", [(span(2022), "Invented viral hemorrhagic fever")], [], span(2022)),
    ("C9000055", "T185", [(ALL, "Invented gastrointestinal disease")], [], ALL),
    # added for the LINK rules on treatments, prevention and side effects (all releases, static)
    ("C9000056", "T121", [(ALL, "Shamcillin (invented)")], [], ALL),
    ("C9000057", "T121", [(ALL, "Figmentol (invented)")], [], ALL),
    ("C9000058", "T129", [(ALL, "Notarealumab (invented)")], [], ALL),
    ("C9000059", "T047", [(ALL, "Figment fungal infection (invented)")], [], ALL),
    ("C9000060", "T047", [(ALL, "Sham anemia (invented)")], ["Sham anaemia (invented)"], ALL),
    ("C9000061", "T047", [(ALL, "Phantom gout (invented)")], [], ALL),
    ("C9000062", "T129", [(ALL, "Mockpox vaccine (invented)")], [], ALL),
    ("C9000063", "T047", [(ALL, "Mockpox (invented)")], [], ALL),
]
NAME_CUI = {}
for _cui, _tui, _names, _syn, _years in CONCEPTS:
    for _ys, _n in _names:
        NAME_CUI.setdefault(_n.replace(" (invented)", ""), _cui)

# (subject, rela, object, years): the fact "subject rela object" holds in those releases
FACTS = [
    ("Examplomycin", "may_treat", "Quillon pneumonia", ALL),
    ("Examplomycin", "may_treat", "Zorbian fever", span(2022)),
    ("Examplomycin", "may_treat", "Prill dermatitis", span(2021, 2022)),
    ("Fictivastatin", "may_treat", "Varnish hypercholesterolemia", ALL),
    ("Fictivastatin", "may_prevent", "Fictive myocardial infarction", span(2021)),
    ("Samplovir", "may_treat", "Mockflu", ALL),
    ("Samplovir", "may_treat", "Blenkin hepatitis", span(2023)),
    ("Samplovir", "may_prevent", "Mockflu", span(2022)),
    ("Mockiprazole", "may_treat", "Tarnel gastric ulcer", ALL),
    ("Mockiprazole", "may_treat", "Fictive reflux disease", ALL),
    ("Mockiprazole", "may_prevent", "Tarnel gastric ulcer", span(2020, 2023)),
    ("Testosumab", "may_treat", "Grommet arthritis", span(2022)),
    ("Demoferon alfa", "may_treat", "Blenkin hepatitis", span(2020, 2021)),
    ("Demoferon alfa", "may_treat", "Zorbian fever", span(2020, 2022)),
    ("Imaginol", "may_treat", "Snarlock migraine", ALL),
    ("Imaginol", "may_treat", "Grommet arthritis", span(2020, 2021)),
    ("Imaginol", "induces", "Tarnel gastric ulcer", span(2021)),
    ("Imaginol", "induces", "Drabble syndrome", span(2024)),
    ("Placebozide", "may_treat", "Fictive hypertension", ALL),
    ("Placebozide", "induces", "Mock hypokalemia", span(2022)),
    ("Placebozide", "has_physiologic_effect", "Increased mock diuresis", ALL),
    ("Fictivastatin", "induces", "Drabble syndrome", span(2024)),
    ("Fabulocaine", "has_mechanism_of_action", "Sample sodium channel blockade", ALL),
    ("Fabulocaine", "has_physiologic_effect", "Mock local anesthesia", ALL),
    ("Fabulocaine", "may_treat", "Snarlock migraine", span(2023)),
    ("Pseudoflu vaccine", "may_prevent", "Mockflu", ALL),
    ("Pseudoflu vaccine", "may_prevent", "Quillon pneumonia", span(2023)),
    ("Fictivastatin", "has_mechanism_of_action", "Mock reductase inhibition", ALL),
    ("Fictivastatin", "has_physiologic_effect", "Decreased fictive lipid level", ALL),
    ("Mockiprazole", "has_mechanism_of_action", "Mock proton pump inhibition", ALL),
    ("Mockiprazole", "has_physiologic_effect", "Decreased sample acid secretion", ALL),
    ("Samplovir", "has_mechanism_of_action", "Fictive protease inhibition", ALL),
    ("Testosumab", "has_mechanism_of_action", "Zorb receptor antagonism", span(2022)),
    ("Imaginol", "has_mechanism_of_action", "Zorb receptor antagonism", span(2020, 2022)),
    ("Examplococcus aureus", "causative_agent_of", "Quillon pneumonia", ALL),
    ("Examplococcus aureus", "causative_agent_of", "Prill dermatitis", span(2021)),
    ("Fictivirus zorbiae", "causative_agent_of", "Zorbian fever", ALL),
    ("Mockobacter pylorii", "causative_agent_of", "Tarnel gastric ulcer", ALL),
    ("Samplovirus hepatis", "causative_agent_of", "Blenkin hepatitis", ALL),
    ("Mockflu virus", "causative_agent_of", "Mockflu", ALL),
    ("Mockflu virus", "causative_agent_of", "Quillon pneumonia", span(2022)),
    ("Quillon lobe", "direct_procedure_site_of", "Quillon lobectomy", ALL),
    ("Tarnel antrum", "direct_procedure_site_of", "Tarnel antrectomy", ALL),
    ("Blenkin duct", "direct_procedure_site_of", "Blenkin duct stenting", span(2021)),
    ("Grommet joint", "direct_procedure_site_of", "Grommet arthroscopy", ALL),
    ("Grommet joint", "direct_procedure_site_of", "Grommet joint replacement", span(2023)),
    ("Examplomycin", "isa", "Invented antibacterial agent", ALL),
    ("Fictivastatin", "isa", "Invented HMG-like reductase inhibitor class", ALL),
    ("Samplovir", "isa", "Invented antiviral agent", ALL),
    ("Demoferon alfa", "isa", "Invented antiviral agent", span(2020, 2021)),
    ("Demoferon alfa", "isa", "Invented immunomodulator", span(2022)),
    ("Testosumab", "isa", "Invented immunomodulator", span(2022)),
    ("Quillon pneumonia", "isa", "Invented respiratory infection", ALL),
    ("Mockflu", "isa", "Invented respiratory infection", ALL),
    ("Zorbian fever", "isa", "Invented tropical disease", span(2020, 2021)),
    ("Zorbian fever", "isa", "Invented viral hemorrhagic fever", span(2022)),
    ("Tarnel gastric ulcer", "isa", "Invented gastrointestinal disease", ALL),
    ("Fictive reflux disease", "isa", "Invented gastrointestinal disease", ALL),
    ("Blenkin hepatitis", "isa", "Invented gastrointestinal disease", span(2020, 2022)),
    ("Shamcillin", "may_treat", "Quillon pneumonia", ALL),
    ("Shamcillin", "may_treat", "Prill dermatitis", ALL),
    ("Shamcillin", "isa", "Invented antibacterial agent", ALL),
    ("Figmentol", "may_treat", "Figment fungal infection", ALL),
    ("Figmentol", "induces", "Mock hypokalemia", ALL),
    ("Notarealumab", "may_treat", "Phantom gout", ALL),
    ("Notarealumab", "may_treat", "Grommet arthritis", ALL),
    ("Notarealumab", "induces", "Sham anemia", ALL),
    ("Mockpox vaccine", "may_prevent", "Mockpox", ALL),
]
# RELA -> (REL of the row that states it, inverse RELA, REL of the inverse row)
RELATIONS = {
    "isa": ("CHD", "inverse_isa", "PAR"),
    "direct_procedure_site_of": ("RO", "has_direct_procedure_site", "RO"),
    "may_treat": ("RO", "may_be_treated_by", "RO"),
    "may_prevent": ("RO", "may_be_prevented_by", "RO"),
    "induces": ("RO", "induced_by", "RO"),
    "causative_agent_of": ("RO", "has_causative_agent", "RO"),
    "has_mechanism_of_action": ("RO", "mechanism_of_action_of", "RO"),
    "has_physiologic_effect": ("RO", "physiologic_effect_of", "RO"),
}


def row(fields) -> str:
    return "|".join(fields) + "|\n"


def main() -> None:
    cui_years = {c[0]: set(c[4]) for c in CONCEPTS}
    atoms: dict[tuple, tuple] = {}  # (cui, string) -> (AUI, LUI, SUI), stable over releases

    def atom(cui, string):
        if (cui, string) not in atoms:
            n = len(atoms) + 1
            atoms[(cui, string)] = (f"A9{n:07d}", f"L9{n:06d}", f"S9{n:07d}")
        return atoms[(cui, string)]

    for cui, tui, names, synonyms, years in CONCEPTS:  # allocate ids in table order
        for _ys, name in names:
            atom(cui, name)
        for s in synonyms:
            atom(cui, s)
        if cui == "C9000055":
            # the Spanish atom's ids were allocated here before the LINK concepts were added
            atom("C9000001", "Examplomicina (inventada)")
    rui_of: dict[tuple, str] = {}
    for subject, rela, obj, years in FACTS:
        s, o = NAME_CUI[subject], NAME_CUI[obj]
        if not set(years) <= cui_years[s] or not set(years) <= cui_years[o]:
            raise SystemExit(f"fact outside its concepts' releases: {subject} {rela} {obj}")
        rui_of[(s, rela, o)] = f"R9{len(rui_of) * 2 + 1:07d}"

    for year in YEARS:
        meta = OUT / f"{year}AA" / "META"
        meta.mkdir(parents=True, exist_ok=True)
        conso, sty = [], []
        for cui, tui, names, synonyms, years in CONCEPTS:
            if year not in years:
                continue
            preferred = next(n for ys, n in names if year in ys)
            code = f"KF{cui[1:]}"
            strings = [(preferred, "P", "PT")] + [(s, "S", "SY") for s in synonyms if s != preferred]
            # a name that was preferred in an earlier release stays as a synonym
            for ys, n in names:
                if n != preferred and min(ys) < year and n not in synonyms:
                    strings.append((n, "S", "SY"))
            for string, ts, tty in strings:
                aui, lui, sui = atom(cui, string)
                conso.append(row([cui, "ENG", ts, lui, "PF", sui, "Y", aui, "", code, "", SAB, tty, code,
                                  string, "0", "N", ""]))
            if cui == "C9000001":  # one non-English atom: loaders keep English only
                aui, lui, sui = atom(cui, "Examplomicina (inventada)")
                conso.append(row([cui, "SPA", "S", lui, "PF", sui, "Y", aui, "", code, "", "KFSAMPLE_SPA", "PT",
                                  code, "Examplomicina (inventada)", "0", "N", ""]))
            stn, sty_name = SEMANTIC_TYPES[tui]
            sty.append(row([cui, tui, stn, sty_name, f"AT9{int(cui[1:]):07d}", ""]))
        rel = []
        for subject, rela, obj, years in FACTS:
            if year not in years:
                continue
            s, o = NAME_CUI[subject], NAME_CUI[obj]
            rel_code, inverse, inverse_rel = RELATIONS[rela]
            rui = rui_of[(s, rela, o)]
            inverse_rui = f"R9{int(rui[2:]) + 1:07d}"
            s_aui = atom(s, next(n for ys, n in CONCEPTS_BY_CUI[s][2] if year in ys))[0]
            o_aui = atom(o, next(n for ys, n in CONCEPTS_BY_CUI[o][2] if year in ys))[0]
            # (subject, rela, object): the subject is the SECOND concept of the row
            rel.append(row([o, o_aui, "SCUI", rel_code, s, s_aui, "SCUI", rela, rui, "", SAB, SAB, "", "Y", "N", ""]))
            rel.append(row([s, s_aui, "SCUI", inverse_rel, o, o_aui, "SCUI", inverse, inverse_rui, "", SAB, SAB, "",
                            "N", "N", ""]))
        (meta / "MRCONSO.RRF").write_text("".join(conso), encoding="utf-8")
        (meta / "MRREL.RRF").write_text("".join(rel), encoding="utf-8")
        (meta / "MRSTY.RRF").write_text("".join(sty), encoding="utf-8")
        print(f"{year}AA: {len(conso)} atoms, {len(rel)} relation rows, {len(sty)} semantic types")


CONCEPTS_BY_CUI = {c[0]: c for c in CONCEPTS}

if __name__ == "__main__":
    main()
