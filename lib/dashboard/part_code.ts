/**
 * A part label's code (`PM-…`, docs/search-box.md "Part codes") as the search box reads it: the part it
 * names, or null. Labels and their codes are another module's (the printed sheet's); until the search box
 * is given that module's parser, no code names a part, and a code typed in the box is looked for as a part
 * number like any other text.
 */
export function partIdOfCode(_text: string): number | null {
  return null;
}
