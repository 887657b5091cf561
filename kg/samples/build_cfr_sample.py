"""Write the CFR sample: ``cfr/<year>/title-14-part-107.xml`` and ``title-21-part-101.xml`` for
the annual editions 2019-2022, in eCFR XML style (DIV1 title > DIV5 part > DIV8 section > P).

Text is abridged from the real regulations. The 2022 changes to part 107 follow the real
"Operations Over People" rule (86 FR 4314, effective 21 April 2021, so first in an annual
edition in 2022); the part 101 changes are illustrative small amendments (a number, a unit or
a short phrase), written to look like real ones. ``docs/samples.md`` lists every change.

Every <P> starts with its own label, unique within its section, so a paragraph id is
section number + label (e.g. ``107.51(a)``).

Deterministic: running it twice writes byte-identical files.
"""
from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

OUT = Path(__file__).resolve().parent / "cfr"
YEARS = (2019, 2020, 2021, 2022)


def by_year(*versions):
    """versions: (first year, text), ...; a text holds until the next version starts."""
    return {year: next(t for first, t in reversed(versions) if first <= year) for year in YEARS}


PART_107 = {
    "title": ("14", "Aeronautics and Space"), "part": "107", "head": "PART 107—SMALL UNMANNED AIRCRAFT SYSTEMS",
    "sections": [
        ("107.1", "Applicability.", [
            "(a) Except as provided in paragraph (b) of this section, this part applies to the registration, airman certification, and operation of civil small unmanned aircraft systems within the United States.",
            "(b) This part does not apply to the following: (1) Air carrier operations; (2) Any aircraft subject to the provisions of part 101 of this chapter; or (3) Any operation that a remote pilot in command elects to conduct pursuant to an exemption issued under section 44807 of title 49, United States Code, unless otherwise specified in the exemption.",
        ]),
        ("107.3", "Definitions.", [
            "(a) Control station means an interface used by the remote pilot to control the flight path of the small unmanned aircraft.",
            "(b) Small unmanned aircraft means an unmanned aircraft weighing less than 55 pounds on takeoff, including everything that is on board or otherwise attached to the aircraft.",
            "(c) Visual observer means a person who is designated by the remote pilot in command to assist the remote pilot in command and the person manipulating the flight controls of the small UAS to see and avoid other air traffic or objects aloft or on the ground.",
        ]),
        ("107.7", "Inspection, testing, and demonstration of compliance.", [
            by_year((2019, "(a) A remote pilot in command, owner, or person manipulating the flight controls of a small unmanned aircraft system must, upon request, make available to the Administrator the remote pilot certificate with small UAS rating and any other document, record, or report required to be kept under the regulations of this chapter."),
                    (2022, "(a) A remote pilot in command, owner, or person manipulating the flight controls of a small unmanned aircraft system must, upon request, make available to the Administrator the remote pilot certificate with a small UAS rating and identification, and any other document, record, or report required to be kept under the regulations of this chapter.")),
            "(b) The remote pilot in command, visual observer, owner, operator, or person manipulating the flight controls of a small unmanned aircraft system must, upon request, allow the Administrator to make any test or inspection of the small unmanned aircraft system, the remote pilot in command, the person manipulating the flight controls of a small unmanned aircraft system, and, if applicable, the visual observer to determine compliance with this part.",
        ]),
        ("107.29", by_year((2019, "Daylight operation."), (2022, "Operation at night.")), [
            by_year((2019, "(a) No person may operate a small unmanned aircraft system during night."),
                    (2022, "(a) No person may operate a small unmanned aircraft system at night unless the remote pilot in command has completed an initial knowledge test or training, as applicable, under § 107.65 after April 6, 2021, and the small unmanned aircraft has lighted anti-collision lighting visible for at least 3 statute miles that has a flash rate sufficient to avoid a collision.")),
            "(b) No person may operate a small unmanned aircraft system during periods of civil twilight unless the small unmanned aircraft has lighted anti-collision lighting visible for at least 3 statute miles. The remote pilot in command may reduce the intensity of the anti-collision lighting if he or she determines that, because of operating conditions, it would be in the interest of safety to do so.",
            "(c) For purposes of paragraph (b) of this section, civil twilight refers to the period of time that begins 30 minutes before official sunrise and ends at official sunrise, and the period that begins at official sunset and ends 30 minutes after official sunset, except in Alaska.",
        ]),
        ("107.39", "Operation over human beings.", [
            by_year((2019, "(a) No person may operate a small unmanned aircraft over a human being unless that human being is directly participating in the operation of the small unmanned aircraft."),
                    (2022, "(a) No person may operate a small unmanned aircraft over a human being unless that human being is directly participating in the operation of the small unmanned aircraft or the operation meets the requirements of at least one of the operational categories specified in subpart D of this part.")),
            "(b) A human being located under a covered structure or inside a stationary vehicle that can provide reasonable protection from a falling small unmanned aircraft is not considered to be under the operation for the purposes of this section.",
        ]),
        ("107.51", "Operating limitations for small unmanned aircraft.", [
            "(a) The groundspeed of the small unmanned aircraft may not exceed 87 knots (100 miles per hour).",
            "(b) The altitude of the small unmanned aircraft cannot be higher than 400 feet above ground level, unless the small unmanned aircraft is flown within a 400-foot radius of a structure and does not fly higher than 400 feet above the structure's immediate uppermost limit.",
            "(c) The minimum flight visibility, as observed from the location of the control station, must be no less than 3 statute miles. For purposes of this section, flight visibility means the average slant distance from the control station at which prominent unlighted objects may be seen and identified by day and prominent lighted objects may be seen and identified by night.",
            "(d) The minimum distance of the small unmanned aircraft from clouds must be no less than 500 feet below the cloud and 2,000 feet horizontally from the cloud.",
        ]),
        ("107.61", "Eligibility.", [
            "(a) Subject to the provisions of §§ 107.57 and 107.59, in order to be eligible for a remote pilot certificate with a small UAS rating under this subpart, a person must be at least 16 years of age.",
            "(b) The person must be able to read, speak, write, and understand the English language. If the applicant is unable to meet one of these requirements due to medical reasons, the FAA may place such operating limitations on that applicant's certificate as are necessary for the safe operation of the small unmanned aircraft.",
        ]),
        ("107.65", "Aeronautical knowledge recency.", [
            by_year((2019, "(a) A person may not operate a small unmanned aircraft system unless that person has passed an initial aeronautical knowledge test within the previous 24 calendar months; or"),
                    (2022, "(a) A person may not operate a small unmanned aircraft system unless that person has passed an initial aeronautical knowledge test within the previous 24 calendar months;")),
            by_year((2019, "(b) Passed a recurrent aeronautical knowledge test within the previous 24 calendar months."),
                    (2022, "(b) Passed a recurrent aeronautical knowledge test within the previous 24 calendar months; or completed an initial or recurrent training course covering the areas of knowledge specified in § 107.74 in a manner acceptable to the Administrator within the previous 24 calendar months.")),
        ]),
    ],
}

PART_101 = {
    "title": ("21", "Food and Drugs"), "part": "101", "head": "PART 101—FOOD LABELING",
    "sections": [
        ("101.2", "Information panel of package form food.", [
            "(a) The term information panel as it applies to packaged food means that part of the label immediately contiguous and to the right of the principal display panel as observed by an individual facing the principal display panel.",
            by_year((2019, "(c) All information required to appear on the label of any package of food under §§ 101.4, 101.5, 101.8, 101.9, 101.13, 101.17, 101.36 and part 105 of this chapter shall appear prominently and conspicuously, but in no case may the letters and/or numbers be less than one-sixteenth inch in height."),
                    (2022, "(c) All information required to appear on the label of any package of food under §§ 101.4, 101.5, 101.8, 101.9, 101.13, 101.17, 101.36 and part 105 of this chapter shall appear prominently and conspicuously, but in no case may the letters and/or numbers be less than one-sixteenth of an inch in height.")),
        ]),
        ("101.3", "Identity labeling of food in packaged form.", [
            "(a) The principal display panel of a food in package form shall bear as one of its principal features a statement of the identity of the commodity.",
            by_year((2019, "(e) A food shall be deemed to be an imitation and thus subject to the requirements of section 403(c) of the act if it is a substitute for and resembles another food but is nutritionally inferior to that food, and the word imitation shall appear in type of uniform size and prominence."),
                    (2021, "(e) A food shall be deemed to be an imitation and thus subject to the requirements of section 403(c) of the act if it is a substitute for and resembles another food but is nutritionally inferior to that food, and the word imitation shall appear in type of uniform size and of equal prominence.")),
        ]),
        ("101.4", "Food; designation of ingredients.", [
            "(a) Ingredients required to be declared on the label or labeling of a food, including foods that comply with standards of identity, shall be listed by common or usual name in descending order of predominance by weight on either the principal display panel or the information panel.",
            "(b) The name of an ingredient shall be a specific name and not a collective (generic) name, except that spices, flavorings, colorings and chemical preservatives shall be declared according to the provisions of § 101.22.",
        ]),
        ("101.9", "Nutrition labeling of food.", [
            "(a) Nutrition information relating to food shall be provided for all products intended for human consumption and offered for sale unless an exemption is provided for the product in paragraph (j) of this section.",
            "(b) All nutrient and food component quantities shall be declared in relation to a serving as defined in this section; the serving size shall be declared in a common household measure that is appropriate to the food.",
            "(c) Caloric content shall be expressed to the nearest 5-calorie increment up to and including 50 calories, and 10-calorie increment above 50 calories, except that amounts less than 5 calories may be expressed as zero.",
            by_year((2019, "(d) Fat content shall be expressed as grams to the nearest 0.5 gram increment below 5 grams and to the nearest gram increment above 5 grams; if the serving contains less than 0.5 gram, the content shall be expressed as zero."),
                    (2021, "(d) Fat content shall be expressed as grams to the nearest 0.5 (1/2) gram increment below 5 grams and to the nearest gram increment above 5 grams; if the serving contains less than 0.5 gram, the content shall be expressed as zero.")),
            "(e) Sodium content shall be expressed as milligrams of sodium to the nearest 5-milligram increment up to and including 140 milligrams, and to the nearest 10-milligram increment above 140 milligrams, except that the content shall be expressed as zero when the serving contains less than 5 milligrams.",
            by_year((2019, "(f) The reference daily intake for vitamin D used to compute percent Daily Value is 400 International Units (IU)."),
                    (2020, "(f) The reference daily intake for vitamin D used to compute percent Daily Value is 20 micrograms (mcg).")),
            by_year((2019, "(g) Added sugars shall be declared as the statement \"Includes 'X' g Added Sugars\" indented under the declaration of total sugars, to the nearest gram."),
                    (2020, "(g) Added sugars shall be declared as the statement \"Includes 'X' g Added Sugars\" indented under the declaration of total sugars, to the nearest gram, except that if a serving contains less than 0.5 gram the content shall be expressed as zero.")),
        ]),
    ],
}


def text(value, year):
    return value[year] if isinstance(value, dict) else value


def render(part, year) -> str:
    title_no, title_name = part["title"]
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<ECFR><AMDDATE>Jan. 1, {year}</AMDDATE>',
           f'<DIV1 N="{title_no}" TYPE="TITLE"><HEAD>Title {title_no}—{escape(title_name)}</HEAD>',
           f'<DIV5 N="{part["part"]}" TYPE="PART"><HEAD>{escape(part["head"])}</HEAD>']
    for number, heading, paragraphs in part["sections"]:
        out.append(f'<DIV8 N="{number}" TYPE="SECTION">')
        out.append(f'<HEAD>§ {number} {escape(text(heading, year))}</HEAD>')
        for p in paragraphs:
            out.append(f"<P>{escape(text(p, year))}</P>")
        out.append("</DIV8>")
    out += ["</DIV5>", "</DIV1>", "</ECFR>"]
    return "\n".join(out) + "\n"


def main() -> None:
    for year in YEARS:
        folder = OUT / str(year)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "title-14-part-107.xml").write_text(render(PART_107, year), encoding="utf-8")
        (folder / "title-21-part-101.xml").write_text(render(PART_101, year), encoding="utf-8")
    print(f"wrote {len(YEARS) * 2} CFR files to {OUT}")


if __name__ == "__main__":
    main()
