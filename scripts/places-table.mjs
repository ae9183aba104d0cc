// Writes src/text/places.tsv: the English forms of one place name, one place
// a line, tab-separated (a country's common name and its demonyms; a world
// region and its adjective), from the world-countries package
// (mledoze/countries, ODbL 1.0): `scripts/places-table COUNTRIES_JSON`.
import { readFileSync, writeFileSync } from "node:fs";

const [source, out] = process.argv.slice(2);
const countries = JSON.parse(readFileSync(source, "utf8"));

// English's adjective of a place name in -a or -e: "Asia" "Asian", "Europe" "European".
const adjective = (name) => name.replace(/a$/, "an").replace(/e$/, "ean");

const rows = new Map();
const add = (forms) => {
  const distinct = [...new Set(forms.filter(Boolean).flatMap((f) => f.split(/,\s*/)))];
  if (distinct.length > 1) rows.set(distinct[0], distinct);
};
for (const c of countries) {
  const eng = c.demonyms?.eng ?? {};
  add([c.name.common, eng.m, eng.f]);
}
const regions = new Set(countries.flatMap((c) => [c.region, c.subregion]).filter(Boolean));
for (const region of regions) {
  if (/[ae]$/.test(region)) add([region, adjective(region)]);
}
const header = [
  "# The English forms of a place name: a country's common name and its demonyms,",
  "# a world region and its adjective. Derived from world-countries (mledoze/countries),",
  "# licensed under the Open Database License 1.0; this table is under the same license.",
  "# Regenerate with scripts/places-table.",
];
const body = [...rows.values()].sort((a, b) => a[0].localeCompare(b[0])).map((r) => r.join("\t"));
writeFileSync(out, [...header, ...body].join("\n") + "\n");
console.log(`${body.length} places written to ${out}`);
